/**
 * The timestamp checks, against `@berth/contract`'s `Clock`: injected so tests and replays of stored deliveries can
 * verify against a fixed time instead of the wall clock.
 */
import { systemClock, type Clock } from '@berth/contract';

/** Default maximum distance, in seconds, between the signed timestamp and now (Stripe's and Svix's 5 minutes). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Validates the tolerance option; a non-positive value would silently disable replay protection. */
export function resolveTolerance(toleranceSeconds: number | undefined): number {
  const tolerance = toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!Number.isFinite(tolerance) || tolerance <= 0) {
    throw new RangeError(`toleranceSeconds must be a positive finite number, got ${String(toleranceSeconds)}`);
  }
  return tolerance;
}

/** Reads the clock once, in milliseconds; an Invalid Date would make every comparison pass, so it throws. */
export function readClockMillis(clock: Clock | undefined): number {
  const millis = (clock ?? systemClock).now().getTime();
  if (!Number.isFinite(millis)) throw new TypeError('clock.now() returned an invalid Date');
  return millis;
}

/**
 * Parses a decimal unix-seconds header. Stricter than the providers' `parseInt` (which accepts
 * `"123abc"`), so the value we check is exactly the value that was signed.
 */
export function parseUnixSeconds(value: string): number | undefined {
  return /^[0-9]{1,15}$/.test(value) ? Number(value) : undefined;
}

/** True when the signed time is at most `toleranceSeconds` before or after now. */
export function isWithinTolerance(timestampSeconds: number, nowMillis: number, toleranceSeconds: number): boolean {
  const nowSeconds = Math.floor(nowMillis / 1000);
  return Math.abs(nowSeconds - timestampSeconds) <= toleranceSeconds;
}

/** Standard failure message for an out-of-tolerance timestamp. */
export function toleranceMessage(timestampSeconds: number, nowMillis: number, toleranceSeconds: number): string {
  const skew = timestampSeconds - Math.floor(nowMillis / 1000);
  const direction = skew < 0 ? 'old' : 'in the future';
  return `signed timestamp is ${Math.abs(skew)}s ${direction}; tolerance is ${toleranceSeconds}s`;
}
