import type { ReceivedMessage } from '@berth/messaging';
import type { RegisteredJob } from '../../discovery/job-registry';
import { JobCancelledError } from '../../errors';
import { PrioritySemaphore } from '../../flow/priority-semaphore';
import { createWorkerEvents, type WorkerEventMap } from '../../flow/worker-events';
import type { JobRecord } from '../../job-record';
import { passGates } from './gated-attempt';
import type { GatedJob, GateOutcome, GateVerdict, JobGate } from './job-gates';

const gated = (): GatedJob => ({
  job: { queue: 'q', name: 'n' } as RegisteredJob,
  record: { id: 'job-1', attemptsMade: 0, data: null, addedAt: '2026-01-01T00:00:00.000Z' } as unknown as JobRecord,
  message: { deliveryCount: 1, streamSequence: 7 } as ReceivedMessage,
  stream: 'JOBS',
});

/** A gate answering `verdict` and recording what it was told. */
function gate(name: string, verdict: GateVerdict, log: string[], stage: JobGate['stage'] = 'admission'): JobGate {
  return {
    name,
    stage,
    admit: async () => {
      log.push(`admit ${name}`);
      return verdict;
    },
    release: (_gated, outcome: GateOutcome) => {
      log.push(`release ${name} ${outcome}`);
    },
  };
}

function recordEvents(): { events: ReturnType<typeof createWorkerEvents>; seen: string[] } {
  const events = createWorkerEvents();
  const seen: string[] = [];
  for (const name of ['job:start', 'job:complete', 'job:error', 'job:dropped', 'job:deferred'] as const)
    events.on(name, (...args: WorkerEventMap[typeof name]) => seen.push(`${name} ${JSON.stringify(args[0])}`));
  return { events, seen };
}

it('runs the attempt once every gate admits, then tells each admitted gate, last first', async () => {
  const log: string[] = [];
  const { events, seen } = recordEvents();
  const gates = [gate('a', 'run', log), gate('b', 'run', log), gate('rate', 'run', log, 'slot')];
  const result = await passGates(
    { gates, slots: new PrioritySemaphore(1), leaseMs: 1000, events, attempt: async () => void log.push('attempt') },
    gated(),
  );
  expect(result).toBe('ran');
  expect(log).toEqual(['admit a', 'admit b', 'admit rate', 'attempt', 'release b completed', 'release a completed']);
  expect(seen).toEqual([]);
});

it('parks without an attempt when an admission gate parks, releasing only the gates before it', async () => {
  const log: string[] = [];
  const { events, seen } = recordEvents();
  const gates = [gate('a', 'run', log), gate('slot', 'park', log), gate('c', 'run', log)];
  const attempt = jest.fn(async () => undefined);
  expect(await passGates({ gates, slots: new PrioritySemaphore(1), leaseMs: 1000, events, attempt }, gated())).toBe(
    'parked',
  );
  expect(attempt).not.toHaveBeenCalled();
  expect(log).toEqual(['admit a', 'admit slot', 'release a park']);
  expect(seen).toEqual([
    'job:deferred {"queue":"q","name":"n","jobId":"job-1","attempt":1,"gate":"slot","outcome":"park"}',
  ]);
});

it('throws the drop of a gate as the job cancelled, and a slot gate delays inside the slot', async () => {
  const log: string[] = [];
  const drop = new JobCancelledError('job-1', 'held');
  const slots = new PrioritySemaphore(1);
  const attempt = async (): Promise<void> => undefined;
  await expect(
    passGates({ gates: [gate('a', 'run', log), gate('s', { drop }, log)], slots, leaseMs: 1000, attempt }, gated()),
  ).rejects.toBe(drop);
  expect(log).toEqual(['admit a', 'admit s', 'release a cancelled']);
  log.length = 0;
  expect(
    await passGates(
      { gates: [gate('a', 'run', log), gate('rate', 'delay', log, 'slot')], slots, leaseMs: 1000, attempt },
      gated(),
    ),
  ).toBe('parked');
  expect(log).toEqual(['admit a', 'admit rate', 'release a delay']);
  expect(slots.active).toBe(0);
});

it('tells the gates an attempt failed, and a cancel during the attempt as cancelled', async () => {
  const log: string[] = [];
  const slots = new PrioritySemaphore(1);
  const failure = new Error('boom');
  await expect(
    passGates(
      { gates: [gate('a', 'run', log)], slots, leaseMs: 1000, attempt: async () => Promise.reject(failure) },
      gated(),
    ),
  ).rejects.toBe(failure);
  const cancelled = new JobCancelledError('job-1');
  await expect(
    passGates(
      { gates: [gate('a', 'run', log)], slots, leaseMs: 1000, attempt: async () => Promise.reject(cancelled) },
      gated(),
    ),
  ).rejects.toBe(cancelled);
  expect(log).toEqual(['admit a', 'release a failed', 'admit a', 'release a cancelled']);
});
