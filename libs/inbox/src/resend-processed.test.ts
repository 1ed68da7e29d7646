import { ManualClock } from '@berth/contract/testing';
import type { JetStreamClient } from '@nats-io/jetstream';
import { createLogger } from '@berth/logger';
import {
  processInboxEvent,
  readWebhookAttemptLog,
  redeliverWebhookEvent,
  resendProcessedWebhookEvent,
  type Inbox,
  type InboxHandlerEvent,
} from './index';
import { fakeWebhookMessage } from './testing';
import { startTestInbox, type TestInbox } from './test-support/test-inbox';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const at = (ms: number) => new ManualClock(T0 + ms);
const silent = createLogger({ service: 'inbox-resend-test', level: 'silent' });
let testInbox: TestInbox;
let inbox: Inbox;

beforeAll(async () => {
  testInbox = await startTestInbox('inbox_resend_test');
  ({ inbox } = testInbox);
});
afterAll(() => testInbox?.stop());

/** A JetStream client that records the message ids it is asked to publish. */
function recordingJs(): { js: JetStreamClient; msgIds: (string | undefined)[] } {
  const msgIds: (string | undefined)[] = [];
  const js = {
    async publish(_subject: string, _data: string, options: { msgID?: string }) {
      msgIds.push(options.msgID);
      return { stream: 'WEBHOOKS', seq: msgIds.length, duplicate: false };
    },
  } as unknown as JetStreamClient;
  return { js, msgIds };
}

describe('resendProcessedWebhookEvent', () => {
  it('sends a processed event to its handler once more, and its attempt log keeps both successes', async () => {
    const runs: InboxHandlerEvent[] = [];
    const message = fakeWebhookMessage({ provider: 'stripe', eventId: 'evt_resend', type: 'invoice.paid', body: {} });
    const process = (ms: number) =>
      processInboxEvent({
        inbox,
        message,
        owner: 'billing-1',
        // Longer than the test's clock moves: the success released it, so the resend need not wait for it.
        leaseMs: 3_600_000,
        clock: at(ms),
        logger: silent,
        handler: async (event) => void runs.push(event),
      });
    expect(await process(1000)).toBe('processed');
    // Until it is sent again, another delivery of the message runs nothing.
    expect(await process(2000)).toBe('already_processed');
    const { js, msgIds } = recordingJs();
    const ref = { inbox, messaging: { js }, provider: 'stripe', eventId: 'evt_resend' };
    expect(await redeliverWebhookEvent({ ...ref, clock: at(3000) })).toMatchObject({ status: 'processed' });

    expect(
      await resendProcessedWebhookEvent({ ...ref, clock: at(120_000), owner: 'berth-console:resend:alice' }),
    ).toEqual({
      status: 'resent',
      msgId: 'stripe/requeue/1:evt_resend',
      streamSequence: 1,
      processedAt: new Date(T0 + 1000),
    });
    expect(msgIds).toEqual(['stripe/requeue/1:evt_resend']);
    expect(await inbox.events.findOne({ _id: 'stripe:evt_resend' })).toMatchObject({
      processedAt: null,
      processedBefore: [{ at: new Date(T0 + 1000), attempt: 1, owner: 'billing-1', startedAt: new Date(T0 + 1000) }],
      attempts: 0,
      reopenedAt: new Date(T0 + 120_000),
      requeueCount: 1,
    });
    expect(await resendProcessedWebhookEvent({ ...ref, clock: at(121_000) })).toEqual({ status: 'not_processed' });
    expect(await resendProcessedWebhookEvent({ ...ref, eventId: 'evt_none' })).toEqual({ status: 'unknown' });

    expect(await process(122_000)).toBe('processed');
    expect(runs.map((event) => event.attempt)).toEqual([1, 1]);
    const read = await readWebhookAttemptLog({ inbox, provider: 'stripe', eventId: 'evt_resend', clock: at(500_000) });
    expect(read!.attemptLog.map(({ kind, outcome, owner }) => ({ kind, outcome, owner }))).toEqual([
      { kind: 'attempt', outcome: 'succeeded', owner: 'billing-1' },
      { kind: 'attempt', outcome: 'succeeded', owner: 'billing-1' },
    ]);
  });
});
