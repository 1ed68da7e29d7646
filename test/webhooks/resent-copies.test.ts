/**
 * A provider's retries and a late resend of one event, through the gateway connected as its own NATS user
 * (deploy/nats/auth.conf, as compose and Kubernetes run it).
 *
 * The gateway tells a retry (dropped: JetStream already holds the event) from a late resend (a resend from the
 * provider's dashboard, stored once more marked `Berth-Resent`, so that an event the inbox set aside is reopened)
 * by reading when the first copy was stored. That read is a JetStream API call the gateway's user must be allowed:
 * when it was refused, every retry was taken for a late resend and stored again, and nats-server logged a
 * permission violation.
 *
 * Here: the event, then four retries at once, then (once the first copy is older than the resend threshold) two
 * late resends. JetStream must hold the event once plus one marked copy per late resend, the inbox one row
 * processed once, and nats-server must have refused nothing.
 */
import { waitFor } from '@berth/local-infra/testing';
import { randomUUID } from 'node:crypto';
import { WEBHOOK_HEADERS } from '@berth/messaging';
import { startMesh, type Mesh } from '../support/mesh';

/** What the gateway's `WEBHOOK_RESEND_COPY_AFTER_MS` is set to here: a copy this much later is a late resend. */
const RESEND_AFTER_MS = 6000;

let mesh: Mesh;

beforeAll(async () => {
  mesh = await startMesh({
    name: 'webhooks_resent_copies',
    services: ['gateway', 'identity-sync'],
    env: { gateway: { WEBHOOK_RESEND_COPY_AFTER_MS: String(RESEND_AFTER_MS) } },
  });
}, 180_000);
afterAll(async () => {
  await mesh?.stop();
}, 60_000);

/** Every message of WEBHOOKS on `webhooks.clerk.>` carrying `eventId`: its sequence, time and whether it is marked resent. */
async function storedCopies(eventId: string): Promise<{ seq: number; time: Date; resent: boolean }[]> {
  const info = await mesh.messaging.jsm.streams.info('WEBHOOKS');
  const copies: { seq: number; time: Date; resent: boolean }[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const message = await mesh.messaging.jsm.streams.getMessage('WEBHOOKS', { seq });
    if (!message || !message.subject.startsWith('webhooks.clerk.')) continue;
    if (message.header?.get(WEBHOOK_HEADERS.eventId) !== eventId) continue;
    copies.push({ seq, time: message.time, resent: message.header.get(WEBHOOK_HEADERS.resent) === 'true' });
  }
  return copies;
}

describe('retries and late resends through the gateway, under the real NATS users', () => {
  it('drops the retries, stores one marked copy per late resend, processes the event once, and nothing is refused', async () => {
    const run = randomUUID().slice(0, 8);
    const userId = `user_resent_${run}`;
    const msgId = `msg_resent_${run}`;
    const at = Date.now();
    const event = {
      type: 'user.created',
      timestamp: at,
      data: { id: userId, object: 'user', email_addresses: [], created_at: at, updated_at: at },
    };
    const send = () => mesh.sender.sendClerk(msgId, event);

    expect((await send()).status).toBe(200);
    // A provider retrying because it missed the 200: at once, well inside the resend threshold.
    const retries = await Promise.all(Array.from({ length: 4 }, send));
    expect(retries.map((answer) => [answer.status, answer.body])).toEqual(
      Array.from({ length: 4 }, () => [200, '{"received":true}']),
    );
    const afterRetries = await storedCopies(msgId);
    expect(afterRetries.map(({ resent }) => resent)).toEqual([false]);
    await waitFor(() => mesh.inbox.events.findOne({ _id: `clerk:${msgId}` }), {
      what: 'the event processed',
      timeoutMs: 30_000,
      intervalMs: 100,
      until: (row) => row?.processedAt instanceof Date,
    });

    // Late resends, once the first copy is older than the threshold (waiting on the stored time, not a sleep).
    await waitFor(async () => Date.now() - afterRetries[0].time.getTime(), {
      what: `the first copy to be ${RESEND_AFTER_MS} ms old`,
      timeoutMs: RESEND_AFTER_MS + 30_000,
      intervalMs: 200,
      until: (age) => age >= RESEND_AFTER_MS + 100,
    });
    for (let resend = 0; resend < 2; resend++) expect((await send()).status).toBe(200);
    const copies = await storedCopies(msgId);
    expect(copies.map(({ resent }) => resent)).toEqual([false, true, true]);

    await mesh.waitForConsumerSettled('identity-sync', 30_000);
    const rows = await mesh.inbox.events.find({ provider: 'clerk', eventId: msgId }).toArray();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ attempts: 1, lastError: null, abandonedAt: null });
    expect(mesh.service('identity-sync').logged('Clerk user change applied', { clerkId: userId })).toHaveLength(1);
    expect(mesh.service('gateway').logged(/not stored/)).toEqual([]);
    expect(await mesh.natsViolations()).toEqual([]);
  }, 120_000);
});
