import { JobCancelledError } from '../../errors';
import type { PrioritySemaphore } from '../../flow/priority-semaphore';
import type { WorkerEvents } from '../../flow/worker-events';
import type { GatedJob, GateOutcome, GateVerdict, JobGate } from './job-gates';

/** Options for {@link passGates}. */
export interface PassGatesOptions {
  gates: readonly JobGate[];
  /** The worker's concurrency: the attempt (and the gates of stage `slot`) run in one of its slots. */
  slots: PrioritySemaphore;
  /** The leases held by admitted gates are renewed every third of this (at least every 250 ms). */
  leaseMs: number;
  events?: WorkerEvents;
  /** The attempt itself, once every gate admitted the job. */
  attempt: (gated: GatedJob) => Promise<void>;
}

/**
 * One job through its gates and, if every one admits it, its attempt. The admission gates run outside the worker's
 * slots, for every job in hand at once, so their KV round trips overlap and are group committed instead of each
 * holding a slot while it waits (a key slot held a little early only makes its limit stricter). Resolves `'ran'`
 * after a successful attempt, `'parked'` when a gate set the job aside (its message is acked without an attempt);
 * rejects with the attempt's error, or with `JobCancelledError` when a gate dropped the job. Every admitted gate is
 * told how the passage ended, last admitted first.
 */
export async function passGates(options: PassGatesOptions, gated: GatedJob): Promise<'ran' | 'parked'> {
  const admitted: JobGate[] = [];
  const settle = async (outcome: GateOutcome): Promise<void> => {
    for (const gate of [...admitted].reverse()) await gate.release?.(gated, outcome);
  };
  for (const gate of options.gates) {
    if (gate.stage !== 'admission') continue;
    const verdict = await gate.admit(gated);
    if (verdict === 'run') {
      admitted.push(gate);
      continue;
    }
    await settle(typeof verdict === 'string' ? verdict : 'cancelled');
    return setAside(options, gated, gate, verdict);
  }
  const leased = admitted.filter((gate) => gate.renew && gate.holdsLease?.(gated));
  const renew =
    leased.length > 0
      ? setInterval(
          () => {
            for (const gate of leased) void gate.renew?.(gated);
          },
          Math.max(options.leaseMs / 3, 250),
        )
      : undefined;
  let outcome: GateOutcome = 'failed';
  try {
    const refused = await options.slots.run(async () => {
      for (const gate of options.gates) {
        if (gate.stage !== 'slot') continue;
        const verdict = await gate.admit(gated);
        if (verdict !== 'run') return { gate, verdict };
      }
      await options.attempt(gated);
      return undefined;
    }, gated.record.priority);
    if (refused) {
      outcome = typeof refused.verdict === 'string' ? refused.verdict : 'cancelled';
      return setAside(options, gated, refused.gate, refused.verdict);
    }
    outcome = 'completed';
    return 'ran';
  } catch (error) {
    outcome = error instanceof JobCancelledError ? 'cancelled' : 'failed';
    throw error;
  } finally {
    clearInterval(renew);
    await settle(outcome);
  }
}

/** Reports a job a gate did not admit; throws the drop's error, else resolves `'parked'`. */
function setAside(
  options: PassGatesOptions,
  gated: GatedJob,
  gate: JobGate,
  verdict: Exclude<GateVerdict, 'run'>,
): 'parked' {
  const ref = {
    queue: gated.job.queue,
    name: gated.job.name,
    jobId: gated.record.id,
    attempt: gated.record.attemptsMade + gated.message.deliveryCount,
    gate: gate.name,
  };
  if (typeof verdict !== 'string') {
    options.events?.emit('job:dropped', { ...ref, reason: verdict.drop.reason ?? 'cancelled' });
    throw verdict.drop;
  }
  options.events?.emit('job:deferred', { ...ref, outcome: verdict });
  return 'parked';
}
