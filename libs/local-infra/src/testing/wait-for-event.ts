import type { EventEmitter } from 'node:events';

/** The event names of a typed emitter's map. */
type EventName<M> = Extract<keyof M, string>;
/** The arguments of event `K` in map `M`. */
type EventArgs<M, K extends keyof M> = M[K] extends unknown[] ? M[K] : never;

/** Options for {@link waitForEvent}. */
export interface WaitForEventOptions<A extends unknown[]> {
  /** Only an event whose arguments satisfy this counts (any event of the name by default). */
  until?: (...args: A) => boolean;
  /** 10 000 ms by default. */
  timeoutMs?: number;
  /** What is waited for, for the error message (the event's name by default). */
  what?: string;
}

/**
 * Resolves with the arguments of the next event `name` on `emitter` that satisfies `until` (graphile-worker's
 * `EventMonitor` style), or rejects after the deadline. Call it *before* the action that causes the event, then
 * await it after, so an event emitted at once is not missed.
 */
export function waitForEvent<M extends Record<keyof M, unknown[]>, K extends EventName<M>>(
  emitter: EventEmitter<M>,
  name: K,
  options: WaitForEventOptions<EventArgs<M, K>> = {},
): Promise<EventArgs<M, K>> {
  const target = emitter as unknown as EventEmitter;
  const timeoutMs = options.timeoutMs ?? 10_000;
  return new Promise((resolve, reject) => {
    const listener = (...args: unknown[]): void => {
      if (options.until && !options.until(...(args as EventArgs<M, K>))) return;
      clearTimeout(timer);
      target.off(name, listener);
      resolve(args as EventArgs<M, K>);
    };
    const timer = setTimeout(() => {
      target.off(name, listener);
      reject(new Error(`Timed out after ${timeoutMs} ms waiting for ${options.what ?? `the event ${name}`}`));
    }, timeoutMs);
    target.on(name, listener);
  });
}

/**
 * Resolves once `count` events `name` satisfying `until` have been emitted from now on (for "the second tick was
 * emitted"), with the arguments of the last one.
 */
export async function waitForEvents<M extends Record<keyof M, unknown[]>, K extends EventName<M>>(
  emitter: EventEmitter<M>,
  name: K,
  count: number,
  options: WaitForEventOptions<EventArgs<M, K>> = {},
): Promise<EventArgs<M, K>> {
  let seen = 0;
  const until = (...args: EventArgs<M, K>): boolean => (!options.until || options.until(...args)) && ++seen >= count;
  return waitForEvent(emitter, name, { ...options, until, what: options.what ?? `${count} events ${name}` });
}
