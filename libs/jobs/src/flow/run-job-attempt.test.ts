import { CancellationSet } from '../drivers/cancellations';
import { JobCancelledError, JobTimeoutError } from '../errors';
import { runJobAttempt, type JobAttempt } from './run-job-attempt';
import { createWorkerEvents } from './worker-events';

const info = { id: 'job-1', name: 'Send', queue: 'q', attempt: 2, addedAt: '2026-01-01T00:00:00.000Z' };

function watch(): { events: ReturnType<typeof createWorkerEvents>; seen: string[] } {
  const events = createWorkerEvents();
  const seen: string[] = [];
  events.on('job:start', (ref) => seen.push(`start ${ref.jobId} ${ref.attempt}`));
  events.on('job:complete', (ref) => seen.push(`complete ${ref.jobId}`));
  events.on('job:error', (ref) => seen.push(`error ${(ref.error as Error).name}`));
  events.on('job:dropped', (ref) => seen.push(`dropped ${ref.gate} ${ref.reason}`));
  return { events, seen };
}

const attempt = (overrides: Partial<JobAttempt>): JobAttempt => ({
  job: { run: async () => undefined },
  data: { n: 1 },
  info,
  timeoutMs: undefined,
  ...overrides,
});

it('hands the job its data and info with a signal, and reports start and completion', async () => {
  const { events, seen } = watch();
  const received: unknown[] = [];
  await runJobAttempt(
    attempt({ events, job: { run: async (data, given) => void received.push(data, given.attempt, !!given.signal) } }),
  );
  expect(received).toEqual([{ n: 1 }, 2, true]);
  expect(seen).toEqual(['start job-1 2', 'complete job-1']);
});

it('fails at its deadline with JobTimeoutError, reported as an error', async () => {
  const { events, seen } = watch();
  const never = { run: () => new Promise<void>(() => undefined) };
  await expect(runJobAttempt(attempt({ events, job: never, timeoutMs: 5 }))).rejects.toBeInstanceOf(JobTimeoutError);
  expect(seen).toEqual(['start job-1 2', 'error JobTimeoutError']);
});

it('stops on a cancellation of the job, reported as dropped', async () => {
  const { events, seen } = watch();
  const cancellations = new CancellationSet();
  const job = {
    run: () => {
      cancellations.add({ queue: 'q', jobId: 'job-1', reason: 'by hand', cancelledAt: info.addedAt });
      return new Promise<void>(() => undefined);
    },
  };
  await expect(runJobAttempt(attempt({ events, job, cancellations }))).rejects.toBeInstanceOf(JobCancelledError);
  expect(seen).toEqual(['start job-1 2', 'dropped cancel by hand']);
});
