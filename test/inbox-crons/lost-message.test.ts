/**
 * An event whose JetStream message is lost while it waits for a retry (deleted from WEBHOOKS) is
 * requeued by the recovery cron and processed; an event whose message is still waiting for its retry is left alone.
 * billing-sync and the recovery share a clock the test moves 30 minutes ahead, instead of waiting.
 */
import { createLogger } from '@berth/logger';
import { recoverWebhookEvents } from '@berth/inbox';
import { publishTestWebhook } from '@berth/inbox/testing';
import { ShiftedClock } from '@berth/contract/testing';
import { disputeEvent, startInboxCronsEnv, testRetryPolicy, type InboxCronsEnv } from './support';

/** The first retry comes a minute after a failure: long enough for the test to lose the message meanwhile. */
const policy = testRetryPolicy({ baseMs: 60_000 });
const time = new ShiftedClock();
const LOST = disputeEvent('evt_lost_message', 'du_lost');
const WAITING = disputeEvent('evt_still_waiting', 're_waiting', 'charge.refund.updated');
let env: InboxCronsEnv;

beforeAll(async () => {
  env = await startInboxCronsEnv({ name: 'inbox_crons_lost', retryPolicy: policy, consumerClock: time });
});
afterAll(async () => {
  await env?.stop();
});

async function row(eventId: string) {
  return (await env.inbox.events.findOne({ _id: `stripe:${eventId}` }))!;
}

describe('the recovery cron', () => {
  it('requeues an event whose message was lost while it waited for a retry, and leaves a waiting one alone', async () => {
    // The lost event fails once (Stripe 503) and waits a minute for its retry; its message is then lost.
    env.standIn.failNext(1);
    await publishTestWebhook(env.messaging.js, LOST);
    await env.outcomes.waitFor(LOST.eventId, 'retried', 1);
    const failed = await row(LOST.eventId);
    expect(failed).toMatchObject({ attempts: 1, roundEndedAt: null, processedAt: null });
    expect(failed.nextAttemptAt!.getTime() - failed.lastAttemptAt!.getTime()).toBeGreaterThanOrEqual(60_000);
    // Lost: its one message deleted (no NATS user may purge a stream; the operator may delete a message).
    const lost = await env.messaging.jsm.streams.getMessage('WEBHOOKS', {
      last_by_subj: 'webhooks.stripe.charge.dispute.created',
    });
    expect(lost?.header.get('Berth-Event-Id')).toBe(LOST.eventId);
    expect(await env.messaging.jsm.streams.deleteMessage('WEBHOOKS', lost!.seq)).toBe(true);
    const left = await env.messaging.jsm.streams.info('WEBHOOKS', {
      subjects_filter: 'webhooks.stripe.charge.dispute.created',
    });
    expect(left.state.subjects?.['webhooks.stripe.charge.dispute.created'] ?? 0).toBe(0);

    // Half an hour later, another event fails once and waits for its retry, its message still in the stream.
    time.advance(30 * 60_000);
    env.standIn.failNext(1);
    await publishTestWebhook(env.messaging.js, WAITING);
    await env.outcomes.waitFor(WAITING.eventId, 'retried', 1);
    const waiting = await row(WAITING.eventId);
    expect(waiting.nextAttemptAt!.getTime()).toBeGreaterThan(time.now().getTime());

    // The recovery cron runs: both are 30 minutes old and unprocessed; only the lost one has no live message.
    env.standIn.setDispute({ id: 'du_lost', status: 'won' });
    env.standIn.setRefund({ id: 're_waiting', status: 'succeeded' });
    const result = await recoverWebhookEvents({
      inbox: env.inbox,
      messaging: env.scheduler,
      logger: createLogger({ service: 'scheduler', level: 'silent' }),
      clock: time,
    });
    expect(result).toEqual({ requeued: 1, abandoned: 0, leftAlone: 1, alerted: 0, failed: 0 });

    // The requeued message: the stored payload, the gateway's headers, a new message id.
    const requeued = await env.messaging.jsm.streams.getMessage('WEBHOOKS', {
      last_by_subj: 'webhooks.stripe.charge.dispute.created',
    });
    expect(requeued?.header.get('Nats-Msg-Id')).toBe('stripe/requeue/1:evt_lost_message');
    expect(requeued?.header.get('Berth-Event-Id')).toBe(LOST.eventId);
    expect(requeued?.header.get('Berth-Received-At')).toBe(failed.receivedAt.toISOString());
    expect(requeued?.json()).toEqual(LOST.body);

    await env.outcomes.waitFor(LOST.eventId, 'acked', 1);
    expect(await row(LOST.eventId)).toMatchObject({ attempts: 2, processedAt: expect.any(Date), requeueCount: 1 });
    expect(env.logs.filter((line) => line.eventId === LOST.eventId && line.msg === 'Dispute synced')).toHaveLength(1);

    // The waiting event was left to its message: not requeued, not retried yet.
    expect(await row(WAITING.eventId)).toMatchObject({
      attempts: 1,
      requeueCount: 0,
      processedAt: null,
      nextAttemptAt: waiting.nextAttemptAt,
    });
    expect(env.outcomes.outcomes(WAITING.eventId)).toEqual(['retried']);
    const stream = await env.messaging.jsm.streams.info('WEBHOOKS', { subjects_filter: '>' });
    expect(stream.state.subjects).toEqual({
      'webhooks.stripe.charge.dispute.created': 1,
      'webhooks.stripe.charge.refund.updated': 1,
    });
  });
});
