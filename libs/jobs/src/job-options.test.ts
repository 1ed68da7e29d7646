import { assertAddJobOptions, DEFAULT_QUEUE_OPTIONS, jobRetryPolicy, resolveQueueOptions } from './job-options';

describe('job options', () => {
  it('fills queue settings from the queue, then the module defaults, then Berth', () => {
    expect(resolveQueueOptions(undefined, undefined)).toEqual(DEFAULT_QUEUE_OPTIONS);
    expect(
      resolveQueueOptions(
        { concurrency: 4, backoff: { jitter: 0 } },
        { retryLimit: 10, backoff: { baseDelayMs: 100 } },
      ),
    ).toEqual({
      ...DEFAULT_QUEUE_OPTIONS,
      concurrency: 4,
      retryLimit: 10,
      backoff: { ...DEFAULT_QUEUE_OPTIONS.backoff, baseDelayMs: 100, jitter: 0 },
    });
    expect(() => resolveQueueOptions({ concurrency: 0 }, undefined)).toThrow('concurrency');
  });

  it('defaults to 3 retries (4 attempts) waiting 5 s, 10 s, 20 s, less up to 20 % jitter', () => {
    const noJitter = jobRetryPolicy(DEFAULT_QUEUE_OPTIONS.backoff, DEFAULT_QUEUE_OPTIONS.retryLimit, () => 0);
    expect(noJitter.maxAttempts).toBe(4);
    expect([1, 2, 3].map((n) => noJitter.delayAfter(n))).toEqual([5000, 10000, 20000]);
    const fullJitter = jobRetryPolicy(DEFAULT_QUEUE_OPTIONS.backoff, 3, () => 0.999999);
    expect(fullJitter.delayAfter(1)).toBe(4000);
  });

  it('checks the options of add', () => {
    expect(() =>
      assertAddJobOptions({ retryLimit: 5, delayInMilliseconds: 60000, deduplicationId: 'some-id' }),
    ).not.toThrow();
    expect(() => assertAddJobOptions({ retryLimit: 1.5 })).toThrow('retryLimit');
    expect(() => assertAddJobOptions({ delayInMilliseconds: -1 })).toThrow('delayInMilliseconds');
    expect(() => assertAddJobOptions({ deduplicationId: '' })).toThrow('deduplicationId');
  });
});
