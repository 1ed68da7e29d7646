/**
 * Lets `ms` of real time pass while a fault lasts: how long a real nats-server or store stays down, how long a
 * stand-in takes to answer. For a test whose subject is the fault's duration, measured by a process no injected clock
 * reaches (nats-server, FerretDB, a service in its own process, the kernel's sockets). It is not a wait for something
 * to happen: for that, await the event (`waitForEvent`) or poll the state (`waitFor`); and where the code
 * under test reads an injected clock, move a `ManualClock` instead. `why` names the fault for the reader.
 */
export function holdFault(ms: number, why: string): Promise<void> {
  return realPause(ms, why, 'holdFault');
}

/**
 * The pause of a client that sends slowly on purpose (between two connections it opens, or a silence before it
 * goes on), where how slowly it sends is what the test is about: the server under test measures it, in its own
 * process. Not a wait for something to happen (see {@link holdFault}).
 */
export function paceSlowClient(ms: number, why: string): Promise<void> {
  return realPause(ms, why, 'paceSlowClient');
}

function realPause(ms: number, why: string, name: string): Promise<void> {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`${name}: ${String(ms)} ms is not a duration (${why})`);
  if (why.trim() === '') throw new TypeError(`${name}: say which fault lasts ${ms} ms`);
  return new Promise((resolve) => setTimeout(resolve, ms));
}
