import { WEBHOOK_RETRY_POLICY } from '@berth/messaging';
import { retryScheduleOf, WEBHOOK_SCHEDULE_BOUND, waitInWords } from './retry-schedule';

const T = Date.parse('2030-01-01T05:00:00.000Z');
const at = (seconds: number) => new Date(T + seconds * 1000);
const row = {
  attempts: 2,
  processedAt: null,
  abandonedAt: null,
  nextAttemptAt: at(10),
  roundEndedAt: null,
  lastError: 'Error: Stripe 503',
};

describe('retryScheduleOf', () => {
  it('bounds the consumers retry policy, wait by wait', () => {
    expect(WEBHOOK_SCHEDULE_BOUND.maxAttempts).toBe(WEBHOOK_RETRY_POLICY.maxAttempts);
    for (let failed = 1; failed < WEBHOOK_RETRY_POLICY.maxAttempts; failed += 1)
      for (let draw = 0; draw < 20; draw += 1) {
        const wait = WEBHOOK_RETRY_POLICY.delayAfter(failed);
        expect(wait).toBeLessThanOrEqual(WEBHOOK_SCHEDULE_BOUND.delayAfter(failed));
        expect(wait).toBeGreaterThanOrEqual(0.9 * WEBHOOK_SCHEDULE_BOUND.delayAfter(failed) - 1);
      }
  });

  it('puts the attempts ahead of a retrying event in words, up to the end of its round', () => {
    const schedule = retryScheduleOf(row);
    expect(schedule).toMatchObject({ roundAttempt: 2, perRound: 11, round: 1, rounds: 3, setAsideAfter: 33 });
    expect(schedule.ahead.map((entry) => entry.attempt)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11]);
    // Attempt 3 at +10 s; attempt 4 after the wait of attempt 3's failure (5 s · 2² = 20 s); attempt 11 after 10 waits.
    expect(schedule.ahead[1].at).toEqual(at(30));
    expect(schedule.ahead.at(-1)!.at).toEqual(at(10 + 20 + 40 + 80 + 160 + 320 + 640 + 1280 + 2560));
    expect(schedule.words).toBe(
      'Attempt 2 of 11 (round 1 of 3) failed; attempt 3 is due at 2030-01-01 05:00:10 UTC, then after waits of ' +
        '20 s, 40 s, 1 min 20 s, 2 min 40 s, 5 min 20 s, 10 min 40 s, 21 min 20 s, 42 min 40 s, the last of this ' +
        'round (11) at about 2030-01-01 06:25:10 UTC, after which the recovery cron starts round 2.',
    );
  });

  it('says when the event was set aside, when its round ended, and that the last round ends in a set-aside', () => {
    expect(retryScheduleOf({ ...row, attempts: 1, nextAttemptAt: null, abandonedAt: at(3) }).words).toBe(
      'Attempt 1 of 11 (round 1 of 3) failed and the event was set aside at 2030-01-01 05:00:03 UTC; nothing runs it until someone retries it.',
    );
    expect(retryScheduleOf({ ...row, attempts: 11, nextAttemptAt: null, roundEndedAt: at(5) }).words).toBe(
      'Attempt 11 of 11 (round 1 of 3) failed; its round ended at 2030-01-01 05:00:05 UTC, so the recovery cron (every 10 min) publishes it again for round 2.',
    );
    expect(retryScheduleOf({ ...row, attempts: 32 }).words).toMatch(
      /the last of this round, after which the event is set aside\.$/,
    );
    expect(retryScheduleOf({ ...row, processedAt: at(1) }).ahead).toEqual([]);
    expect(waitInWords(3_600_000 + 8 * 60_000)).toBe('1 h 8 min');
  });
});
