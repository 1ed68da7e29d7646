import { systemClock } from '@berth/contract';
import { generateWebhookSecret } from '../delivery';
import { toEndpointView, type EndpointSecret, type EndpointView } from './endpoint-document';
import { InvalidEndpointError, type EndpointOperationDependencies } from './endpoint-operations';
import { getEndpoint } from './get-endpoint';

/** Default overlap of a rotation: 24 h, as Svix, so receivers have a day to deploy the new secret. */
export const DEFAULT_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** The endpoint after a rotation, and its new secret. */
export interface RotatedSecret {
  endpoint: EndpointView;
  secret: string;
  /** Until when the previous secret still signs (ISO 8601). */
  previousExpiresAt: string;
}

/**
 * Rotates an endpoint's signing secret: the new secret signs from now on, and the previous one keeps signing beside
 * it for `overlapMs`, so a receiver verifies with either while it switches (every request carries one signature per
 * active secret). Secrets already past their overlap are dropped. One conditional update on the secrets as read,
 * read again and retried if another rotation changed them first.
 * @throws EndpointNotFoundError, InvalidEndpointError
 */
export async function rotateEndpointSecret(
  dependencies: EndpointOperationDependencies,
  endpointId: string,
  options: { overlapMs?: number; secret?: string } = {},
): Promise<RotatedSecret> {
  const overlapMs = options.overlapMs ?? DEFAULT_ROTATION_OVERLAP_MS;
  if (!Number.isInteger(overlapMs) || overlapMs < 0 || overlapMs > 7 * 24 * 60 * 60 * 1000)
    throw new InvalidEndpointError('overlap must be 0 to 7 days');
  if (options.secret !== undefined && !/^whsec_[A-Za-z0-9+/=]{24,}$/.test(options.secret))
    throw new InvalidEndpointError('secret must be whsec_ and base64 of at least 18 bytes');
  const now = (dependencies.clock ?? systemClock).now();
  const previousExpiresAt = new Date(now.getTime() + overlapMs);
  const secret = options.secret ?? generateWebhookSecret();
  for (;;) {
    const endpoint = await getEndpoint(dependencies, endpointId);
    // Fenced on the secrets as read: a rotation that landed in between makes this one match nothing and start over
    // from the secrets it left, so neither rotation's new secret is lost.
    const rotated = await dependencies.collections.endpoints.findOneAndUpdate(
      { _id: endpointId, secrets: endpoint.secrets },
      { $set: { secrets: [{ secret, createdAt: now, expiresAt: null }, ...kept(endpoint.secrets)], updatedAt: now } },
      { returnDocument: 'after' },
    );
    if (!rotated) continue;
    await dependencies.onChanged?.(endpointId);
    return { endpoint: toEndpointView(rotated, now), secret, previousExpiresAt: previousExpiresAt.toISOString() };
  }

  /** The secrets that keep signing: those not yet expired, each until the overlap's end at the latest. */
  function kept(secrets: readonly EndpointSecret[]): EndpointSecret[] {
    return secrets
      .filter((entry) => !entry.expiresAt || entry.expiresAt.getTime() > now.getTime())
      .map((entry) => ({
        ...entry,
        expiresAt:
          entry.expiresAt && entry.expiresAt.getTime() < previousExpiresAt.getTime()
            ? entry.expiresAt
            : previousExpiresAt,
      }));
  }
}
