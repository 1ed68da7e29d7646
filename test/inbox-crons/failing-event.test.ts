/**
 * An event whose handler fails every time (Stripe answers 503 to every call): billing-sync retries it with backoff,
 * 11 attempts a round; the recovery cron, run on demand with a clock 20 minutes ahead and by two replicas at once,
 * requeues it after each round and sets it aside after 33 attempts with exactly one alert (one error log line, one
 * count of the metric, one call of the hook). Once Stripe answers again, `berth webhooks retry-abandoned` reopens
 * it and it is processed once.
 */
import { Counter, Registry } from 'prom-client';
import { createLogger } from '@berth/logger';
import {
  recoverWebhookEvents,
  WEBHOOK_SET_ASIDE_COUNTER,
  type RecoverWebhookEventsResult,
  type WebhookEventAlert,
} from '@berth/inbox';
import { captureLogLines, publishTestWebhook } from '@berth/inbox/testing';
import { ShiftedClock } from '@berth/contract/testing';
import { disputeEvent, startInboxCronsEnv, testRetryPolicy, type InboxCronsEnv } from './support';

const policy = testRetryPolicy({ baseMs: 20, maxMs: 160 });
const EVENT = disputeEvent('evt_always_fails', 'du_always_fails');
const KEY = `stripe:${EVENT.eventId}`;
let env: InboxCronsEnv;

beforeAll(async () => {
  env = await startInboxCronsEnv({ name: 'inbox_crons_failing', retryPolicy: policy });
});
afterAll(async () => {
  await env?.stop();
});

/** The recovery replicas: each its own owner id, all logging into one capture, with one metric and one hook. */
const registry = new Registry();
const setAside = new Counter({
  ...WEBHOOK_SET_ASIDE_COUNTER,
  labelNames: [...WEBHOOK_SET_ASIDE_COUNTER.labelNames],
  registers: [registry],
});
const hookCalls: WebhookEventAlert[] = [];
const recoveryLogs = captureLogLines();
const recoveryLogger = createLogger({ service: 'scheduler', level: 'info', destination: recoveryLogs.destination });
/** The cron runs 20 minutes "later": the event is past the 15-minute minimum age, and never older than that matters. */
const later = new ShiftedClock(20 * 60_000);

function recoverAsReplica(replica: string): Promise<RecoverWebhookEventsResult> {
  return recoverWebhookEvents({
    inbox: env.inbox,
    messaging: env.scheduler,
    logger: recoveryLogger,
    clock: later,
    owner: `recovery-${replica}`,
    alert: async (alert) => void hookCalls.push(alert),
    metric: setAside,
  });
}

/** Two replicas run the recovery cron at the same time; returns their summed counts. */
async function recoverTwice(): Promise<RecoverWebhookEventsResult> {
  const results = await Promise.all([recoverAsReplica('a'), recoverAsReplica('b')]);
  return results.reduce((sum, result) => ({
    requeued: sum.requeued + result.requeued,
    abandoned: sum.abandoned + result.abandoned,
    leftAlone: sum.leftAlone + result.leftAlone,
    alerted: sum.alerted + result.alerted,
    failed: sum.failed + result.failed,
  }));
}

async function row() {
  return (await env.inbox.events.findOne({ _id: KEY }))!;
}

describe('an event whose handler fails every time', () => {
  it('is retried with backoff, set aside after 33 attempts with one alert, and processed once after retry-abandoned', async () => {
    env.standIn.failAll(503);
    await publishTestWebhook(env.messaging.js, EVENT);

    // Round 1: 11 attempts, the waits of the retry policy between them, then the transport gives the message up.
    await env.outcomes.waitFor(EVENT.eventId, 'terminated', 1, 30000);
    expect(env.outcomes.outcomes(EVENT.eventId)).toEqual([...Array(10).fill('retried'), 'terminated']);
    const naks = env.logs.filter(
      (line) => line.eventId === EVENT.eventId && /^Attempt \d+ failed/.test(String(line.msg)),
    );
    expect(naks.map((line) => line.retryInMs)).toEqual(
      Array.from({ length: 10 }, (_, index) => policy.delayAfter(index + 1)),
    );
    expect(naks[0].msg).toMatch(
      /^Attempt 1 failed: StripeUnavailableError: Stripe unavailable \(dispute du_always_fails\): 503/,
    );
    expect(await row()).toMatchObject({
      attempts: 11,
      nextAttemptAt: null,
      roundEndedAt: expect.any(Date),
      abandonedAt: null,
      processedAt: null,
      lastError: expect.stringMatching(/^StripeUnavailableError: .*503/),
    });

    // Rounds 2 and 3: each started by the recovery cron (run by two replicas at once: one requeue between them).
    for (const round of [2, 3]) {
      const recovered = await recoverTwice();
      expect(recovered).toMatchObject({ requeued: 1, abandoned: 0, alerted: 0, failed: 0 });
      expect(recovered.leftAlone).toBeLessThanOrEqual(1);
      await env.outcomes.waitFor(EVENT.eventId, 'terminated', round, 30000);
      expect(await row()).toMatchObject({
        attempts: 11 * round,
        requeueCount: round - 1,
        roundEndedAt: expect.any(Date),
        abandonedAt: null,
      });
    }
    expect(env.outcomes.count(EVENT.eventId, 'retried')).toBe(30);
    const stream = await env.messaging.jsm.streams.info('WEBHOOKS');
    expect(stream.state.messages).toBe(3);

    // 33 attempts used: set aside, one alert, whichever of the two replicas gets there.
    const settled = await recoverTwice();
    expect(settled).toMatchObject({ requeued: 0, abandoned: 1, alerted: 1, failed: 0 });
    expect(settled.leftAlone).toBeLessThanOrEqual(1);
    expect(await row()).toMatchObject({
      attempts: 33,
      abandonedAt: expect.any(Date),
      alertedAt: expect.any(Date),
      setAsideCount: 1,
    });
    expect(hookCalls).toEqual([
      expect.objectContaining({
        alertId: `${KEY}#1`,
        eventId: EVENT.eventId,
        attempts: 33,
        lastError: expect.stringMatching(/503/),
      }),
    ]);
    const errorLines = recoveryLogs.lines.filter((line) => line.level === 50);
    expect(errorLines).toEqual([
      expect.objectContaining({ alert: 'webhook_event_set_aside', eventId: EVENT.eventId, attempts: 33 }),
    ]);
    expect(errorLines[0].msg).toMatch(
      /^Webhook event stripe:evt_always_fails \(charge\.dispute\.created\) set aside after 33 attempt\(s\); last error: StripeUnavailableError: .*503/,
    );
    expect((await setAside.get()).values).toEqual([
      expect.objectContaining({ labels: { provider: 'stripe' }, value: 1 }),
    ]);
    expect(await env.inbox.alerts.countDocuments({})).toBe(1);

    // Later runs change nothing: no requeue of a set-aside event, no second alert.
    expect(await recoverTwice()).toEqual({ requeued: 0, abandoned: 0, leftAlone: 0, alerted: 0, failed: 0 });
    expect(hookCalls).toHaveLength(1);
    expect((await env.messaging.jsm.streams.info('WEBHOOKS')).state.messages).toBe(3);

    // The cause is fixed: Stripe answers again. retry-abandoned reopens the event and publishes it again.
    env.standIn.recover();
    env.standIn.setDispute({ id: 'du_always_fails', status: 'won' });
    const listed = await env.berth('webhooks', 'list', '--state', 'abandoned');
    expect(listed.out).toMatch(
      /^stripe\s+evt_always_fails\s+charge\.dispute\.created\s+\S+\s+33\s+\S+\s+StripeUnavailableError: /m,
    );
    const reopened = await env.berth('webhooks', 'retry-abandoned');
    expect(reopened).toMatchObject({ code: 0, err: '' });
    expect(reopened.out).toContain('Reopened 1 set-aside webhook event(s); 1 published again.');
    await env.outcomes.waitFor(EVENT.eventId, 'acked', 1, 30000);
    expect(await row()).toMatchObject({
      attempts: 1,
      processedAt: expect.any(Date),
      abandonedAt: null,
      requeueCount: 3,
    });
    expect(env.logs.filter((line) => line.eventId === EVENT.eventId && line.msg === 'Dispute synced')).toHaveLength(1);
    expect(env.standIn.requestCount('/v1/disputes/du_always_fails')).toBe(34);

    // Running it again changes nothing; nor does the recovery cron.
    expect((await env.berth('webhooks', 'retry-abandoned')).out).toContain(
      'Reopened 0 set-aside webhook event(s); 0 published again.',
    );
    expect(await recoverTwice()).toEqual({ requeued: 0, abandoned: 0, leftAlone: 0, alerted: 0, failed: 0 });
    expect(env.outcomes.outcomes(EVENT.eventId).filter((outcome) => outcome === 'acked')).toHaveLength(1);
    expect(hookCalls).toHaveLength(1);
  });
});
