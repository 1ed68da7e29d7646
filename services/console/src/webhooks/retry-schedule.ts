import { DEFAULT_MAX_ATTEMPTS, type InboxEventDocument } from '@berth/inbox';
import { exponentialBackoff, type RetryPolicy } from '@berth/messaging';

/** How often the recovery cron runs (`WEBHOOK_RECOVERY_CRON_PATTERN`, every 10 minutes): it starts the next round. */
export const RECOVERY_INTERVAL_MS = 10 * 60_000;

/**
 * `WEBHOOK_RETRY_POLICY` without its jitter (11 attempts, 5 s doubling): the latest each attempt is due, since the
 * policy draws each wait up to 10 % shorter. `retry-schedule.test.ts` checks it bounds the policy's waits.
 */
export const WEBHOOK_SCHEDULE_BOUND: RetryPolicy = exponentialBackoff({ maxAttempts: 11, baseDelayMs: 5000 });

/** A time as `2030-01-01 05:12:04 UTC`. */
export function utc(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** Where an event stands in its retry schedule, and the attempts ahead of it, as the event page puts it in words. */
export interface RetrySchedule {
  /** Attempts so far (since it was last given its attempts back). */
  attempts: number;
  /** This attempt's place in its message's round, 1 to `perRound` (0 before the first attempt). */
  roundAttempt: number;
  /** Attempts one message gets (the consumers' retry policy). */
  perRound: number;
  /** The round, 1 to `rounds`: the recovery cron publishes the event again when a round ended. */
  round: number;
  rounds: number;
  /** The attempt count at which the recovery cron sets the event aside. */
  setAsideAfter: number;
  /** The attempts still due in this round: number and when at the latest (the policy's waits, before jitter). */
  ahead: { attempt: number; at: Date }[];
  /** One sentence: "Attempt 2 of 11 (round 1 of 3) failed; attempt 3 is due at …, …". */
  words: string;
}

/** A wait as "5 s", "2 min 40 s", "1 h 8 min". */
export function waitInWords(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) {
    const rest = seconds % 60;
    return `${Math.floor(seconds / 60)} min${rest ? ` ${rest} s` : ''}`;
  }
  const minutes = Math.round((seconds % 3600) / 60);
  return `${Math.floor(seconds / 3600)} h${minutes ? ` ${minutes} min` : ''}`;
}

/**
 * The event's place in the default schedule: `WEBHOOK_RETRY_POLICY` (11 attempts a message, waits of 5 s doubling)
 * and the recovery cron, which publishes an event whose round ended again every 10 minutes and sets it aside after
 * {@link DEFAULT_MAX_ATTEMPTS} attempts. `attempts` counts claims, so the round is the one those claims fill. The
 * times ahead are the latest each attempt is due ({@link WEBHOOK_SCHEDULE_BOUND}).
 */
export function retryScheduleOf(
  row: Pick<
    InboxEventDocument,
    'attempts' | 'processedAt' | 'abandonedAt' | 'nextAttemptAt' | 'roundEndedAt' | 'lastError'
  >,
  policy: RetryPolicy = WEBHOOK_SCHEDULE_BOUND,
  setAsideAfter = DEFAULT_MAX_ATTEMPTS,
): RetrySchedule {
  const perRound = policy.maxAttempts;
  const rounds = Math.ceil(setAsideAfter / perRound);
  const attempts = row.attempts;
  const round = Math.max(1, Math.ceil(attempts / perRound));
  const roundAttempt = attempts === 0 ? 0 : ((attempts - 1) % perRound) + 1;
  const place = `Attempt ${roundAttempt} of ${perRound} (round ${round} of ${rounds})`;
  const base = { attempts, roundAttempt, perRound, round, rounds, setAsideAfter };
  if (row.processedAt) return { ...base, ahead: [], words: `Processed at attempt ${attempts}; nothing is due.` };
  if (row.abandonedAt)
    return {
      ...base,
      ahead: [],
      words: `${place} failed and the event was set aside at ${utc(row.abandonedAt)}; nothing runs it until someone retries it.`,
    };
  if (attempts === 0)
    return {
      ...base,
      ahead: [],
      words: `No attempt yet: the first is due ${row.nextAttemptAt ? `at ${utc(row.nextAttemptAt)}` : 'as soon as a consumer takes the message'}.`,
    };
  if (!row.nextAttemptAt) {
    const why = row.roundEndedAt
      ? `its round ended at ${utc(row.roundEndedAt)}`
      : 'no retry time was recorded (an attempt running, or one that crashed)';
    const after = attempts >= setAsideAfter ? 'sets it aside' : `publishes it again for round ${round + 1}`;
    return {
      ...base,
      ahead: [],
      words: `${place}${row.lastError ? ' failed' : ''}; ${why}, so the recovery cron (every ${waitInWords(RECOVERY_INTERVAL_MS)}) ${after}.`,
    };
  }
  const ahead: { attempt: number; at: Date }[] = [];
  let due = row.nextAttemptAt.getTime();
  // Attempt `roundAttempt + 1` is due at nextAttemptAt; each later one after the wait its predecessor's failure sets.
  for (let next = roundAttempt + 1; next <= perRound; next += 1) {
    ahead.push({ attempt: attempts + next - roundAttempt, at: new Date(due) });
    due += policy.delayAfter(next);
  }
  const next = ahead[0];
  const last = ahead.at(-1)!;
  const waits = ahead
    .slice(1)
    .map((entry, index) => waitInWords(entry.at.getTime() - ahead[index].at.getTime()))
    .join(', ');
  const end =
    attempts + ahead.length >= setAsideAfter
      ? 'after which the event is set aside'
      : `after which the recovery cron starts round ${round + 1}`;
  return {
    ...base,
    ahead,
    words:
      `${place} failed; attempt ${next.attempt} is due at ${utc(next.at)}` +
      (ahead.length > 1
        ? `, then after waits of ${waits}, the last of this round (${last.attempt}) at about ${utc(last.at)}, ${end}.`
        : `, the last of this round, ${end}.`),
  };
}
