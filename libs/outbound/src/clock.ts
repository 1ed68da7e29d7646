/** The current time; injected everywhere so tests can run days in seconds. */
export type Clock = () => Date;

/** The wall clock. */
export const systemClock: Clock = () => new Date();
