/**
 * `@berth/local-infra/testing`: the waits every test of the repository shares. A test waits on an event of the code
 * under test ({@link waitForEvent}) or, where nothing announces the state it needs, polls it with a deadline
 * ({@link waitFor}); it never sleeps a fixed time. The one exception is a fault whose duration is the subject of the
 * test and is measured by a process no clock reaches: {@link holdFault} and {@link paceSlowClient} name it.
 */
export { waitFor } from './wait-for';
export type { WaitForOptions } from './wait-for';
export { waitForEvent, waitForEvents } from './wait-for-event';
export type { WaitForEventOptions } from './wait-for-event';
export { holdFault, paceSlowClient } from './fault-time';
