/**
 * `@berth/local-infra/testing`: the waits every test of the repository shares. A test waits on an event of the code
 * under test ({@link waitForEvent}) or, where nothing announces the state it needs, polls it with a deadline
 * ({@link waitFor}); it never sleeps a fixed time.
 */
export { waitFor } from './wait-for';
export type { WaitForOptions } from './wait-for';
export { waitForEvent, waitForEvents } from './wait-for-event';
export type { WaitForEventOptions } from './wait-for-event';
