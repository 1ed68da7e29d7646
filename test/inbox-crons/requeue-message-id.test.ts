/**
 * Issue 12: a requeue's `Nats-Msg-Id` must never equal the gateway's id of another event. An event whose id is
 * `evt_x:requeue:1` is stored by the gateway as `stripe:evt_x:requeue:1`; redelivering event `evt_x` must still
 * store a new message, not be dropped by WEBHOOKS' duplicate window as a copy of that other event.
 */
import { publishMessage } from '@berth/messaging';
import { redeliverWebhookEvent, requeueMessageId, type InboxEventDocument } from '@berth/inbox';
import { inboxRow, startInboxCronsEnv, type InboxCronsEnv } from './support';

let env: InboxCronsEnv;

beforeAll(async () => {
  env = await startInboxCronsEnv({ name: 'inbox_requeue_ids', consumer: false });
});
afterAll(async () => {
  await env?.stop();
});

function unprocessedRow(eventId: string): InboxEventDocument {
  const now = new Date();
  return inboxRow('stripe', eventId, 'invoice.paid', {
    receivedAt: now,
    subject: 'webhooks.stripe.invoice.paid',
    attempts: 1,
    lastError: 'Error: x',
    lastAttemptAt: now,
  });
}

describe('requeue message ids', () => {
  it('redelivers an event although another event id reads like its requeue id', async () => {
    const victim = 'evt_victim';
    const lookalike = `${victim}:requeue:1`;
    const stored = await publishMessage(env.messaging.js, {
      subject: 'webhooks.stripe.invoice.paid',
      data: JSON.stringify({ id: lookalike, type: 'invoice.paid' }),
      msgId: `stripe:${lookalike}`,
      headers: {
        'Berth-Provider': 'stripe',
        'Berth-Event-Id': lookalike,
        'Berth-Event-Type': 'invoice.paid',
        'Berth-Received-At': new Date().toISOString(),
      },
      expectedStream: 'WEBHOOKS',
    });
    expect(stored.duplicate).toBe(false);
    await env.inbox.events.insertOne(unprocessedRow(victim));

    const result = await redeliverWebhookEvent({
      inbox: env.inbox,
      messaging: env.messaging,
      provider: 'stripe',
      eventId: victim,
    });
    expect(result).toMatchObject({ status: 'redelivered' });
    expect(result.status === 'redelivered' && result.streamSequence).toBe(stored.seq + 1);
    const message = await env.messaging.jsm.streams.getMessage('WEBHOOKS', {
      last_by_subj: 'webhooks.stripe.invoice.paid',
    });
    expect(message?.header.get('Berth-Event-Id')).toBe(victim);
  });

  it('gives different events and rounds different ids, none of the gateway form `<provider>:<eventId>`', () => {
    const ids = [
      requeueMessageId({ provider: 'stripe', eventId: 'a' }, 1),
      requeueMessageId({ provider: 'stripe', eventId: 'a' }, 2),
      requeueMessageId({ provider: 'stripe', eventId: 'a:requeue:1' }, 1),
    ];
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id.slice(0, id.indexOf(':'))).not.toMatch(/^[a-z0-9][a-z0-9_-]{0,31}$/);
  });
});
