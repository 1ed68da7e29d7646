/**
 * Why a delivery was rejected. Callers map these to HTTP statuses and metrics;
 * the set is deliberately small so dashboards stay stable across providers.
 *
 * - `missing_header`: a required signature/id/timestamp header was absent or empty.
 * - `malformed`: a header or the body could not be parsed (duplicate header, non-numeric
 *   timestamp, body not valid UTF-8, verified body not JSON, no event id).
 * - `timestamp_out_of_tolerance`: the signed timestamp is too far in the past OR the future.
 * - `bad_signature`: no configured secret produced a matching signature.
 */
export type VerificationFailureReason = 'missing_header' | 'malformed' | 'timestamp_out_of_tolerance' | 'bad_signature';

/**
 * A delivery whose signature verified over the exact raw bytes. `payload` is parsed only
 * after verification, so it is always the authenticated body.
 */
export interface VerificationSuccess {
  readonly ok: true;
  /** Provider's event/message id, used as the ingest de-duplication key. */
  readonly eventId: string;
  /** The signed timestamp (whole seconds), not the time of receipt. */
  readonly timestamp: Date;
  /** Index into `secrets` of the secret that verified; lets operators see when rotation is finished. */
  readonly secretIndex: number;
  /** The body parsed as JSON, after the signature was verified. */
  readonly payload: unknown;
}

/** A rejected delivery. `message` is safe to log: it never contains secrets or expected signatures. */
export interface VerificationFailure {
  readonly ok: false;
  readonly reason: VerificationFailureReason;
  readonly message: string;
}

/**
 * What every verifier returns. Verifiers never throw because of request content; they throw
 * only for programmer errors (no secrets, undecodable secret, invalid clock or tolerance).
 */
export type VerificationResult = VerificationSuccess | VerificationFailure;

/** Builds a failure result (internal helper shared by the verifiers). */
export function fail(reason: VerificationFailureReason, message: string): VerificationFailure {
  return { ok: false, reason, message };
}
