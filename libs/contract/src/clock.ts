/**
 * The current time, as Berth's libraries and services take it through their options: injected so tests can fix or
 * move time instead of waiting (signature tolerance, leases, retries, retention).
 */
export type Clock = () => Date;

/** The wall clock. */
export const systemClock: Clock = () => new Date();
