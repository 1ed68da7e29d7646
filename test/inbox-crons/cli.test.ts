/**
 * `berth webhooks …` and `berth crons list`, run in-process against a real nats-server and FerretDB: what they print,
 * their exit codes, and what they change. No consumer runs, so what the CLI publishes stays in WEBHOOKS to be read.
 */
import { createLogger } from '@berth/logger';
import { LastTickStore, LeaderLease, openCronBuckets, registerCronSchedules } from '@berth/cron';
import type { InboxEventDocument } from '@berth/inbox';
import { inboxRow, startInboxCronsEnv, type InboxCronsEnv } from './support';

const silent = createLogger({ service: 'cli-test', level: 'silent' });
const T0 = Date.parse('2030-01-01T00:00:00.000Z');
let env: InboxCronsEnv;

beforeAll(async () => {
  env = await startInboxCronsEnv({ name: 'inbox_crons_cli', consumer: false });
  const row = (
    provider: string,
    eventId: string,
    type: string,
    minutes: number,
    fields: Partial<InboxEventDocument>,
  ): InboxEventDocument =>
    inboxRow(provider, eventId, type, { receivedAt: new Date(T0 + minutes * 60_000), ...fields });
  await env.inbox.events.insertMany([
    row('stripe', 'evt_retrying', 'invoice.payment_failed', 1, {
      attempts: 4,
      lastError: 'StripeUnavailableError: Stripe unavailable (customer cus_1): 503',
      nextAttemptAt: new Date(T0 + 90 * 60_000),
    }),
    row('stripe', 'evt_round_over', 'customer.subscription.updated', 2, {
      attempts: 11,
      lastError: 'Error: timeout',
      roundEndedAt: new Date(T0 + 80 * 60_000),
    }),
    row('clerk', 'msg_waiting', 'user.updated', 3, {}),
    row('stripe', 'evt_set_aside', 'charge.dispute.created', 4, {
      attempts: 33,
      lastError: 'Error: Stripe 503',
      abandonedAt: new Date(T0 + 300 * 60_000),
      setAsideCount: 1,
      alertedAt: new Date(T0 + 300 * 60_000),
    }),
    row('clerk', 'msg_bad', 'user.updated', 5, {
      attempts: 1,
      lastError: 'UnrecoverableError: Invalid Clerk user: updated_at',
      abandonedAt: new Date(T0 + 6 * 60_000),
      setAsideCount: 1,
    }),
    row('stripe', 'evt_done_1', 'invoice.paid', 6, { attempts: 1, processedAt: new Date(T0 + 7 * 60_000) }),
    row('stripe', 'evt_done_2', 'invoice.paid', 7, { attempts: 2, processedAt: new Date(T0 + 9 * 60_000) }),
  ]);
});
afterAll(async () => {
  await env?.stop();
});

describe('berth webhooks list', () => {
  it('lists unprocessed events by default, oldest first, with their next attempt and last error', async () => {
    const { code, out, err } = await env.berth('webhooks', 'list');
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(out).toMatch(/^PROVIDER\s+EVENT ID\s+TYPE\s+RECEIVED AT\s+ATTEMPTS\s+NEXT ATTEMPT\s+LAST ERROR$/m);
    expect(out).toMatch(
      /^stripe\s+evt_retrying\s+invoice\.payment_failed\s+2030-01-01T00:01:00\.000Z\s+4\s+2030-01-01T01:30:00\.000Z\s+StripeUnavailableError: Stripe unavailable \(customer cus_1\): 503$/m,
    );
    expect(out).toMatch(
      /^stripe\s+evt_round_over\s+customer\.subscription\.updated\s+\S+\s+11\s+round ended 2030-01-01T01:20:00\.000Z\s+Error: timeout$/m,
    );
    expect(out).toMatch(/^clerk\s+msg_waiting\s+user\.updated\s+\S+\s+0\s+-\s+-$/m);
    expect(out.indexOf('evt_retrying')).toBeLessThan(out.indexOf('msg_waiting'));
    expect(out).toContain('3 of 3 unprocessed webhook event(s).');
    expect(out).not.toContain('evt_set_aside');
  });

  it('lists set-aside and processed events, by provider, as a table or JSON', async () => {
    const abandoned = await env.berth('webhooks', 'list', '--state', 'abandoned');
    expect(abandoned.out).toMatch(/^PROVIDER\s+EVENT ID\s+TYPE\s+RECEIVED AT\s+ATTEMPTS\s+SET ASIDE AT\s+LAST ERROR$/m);
    expect(abandoned.out).toMatch(
      /^stripe\s+evt_set_aside\s+charge\.dispute\.created\s+\S+\s+33\s+2030-01-01T05:00:00\.000Z\s+Error: Stripe 503$/m,
    );
    expect(abandoned.out).toContain('2 of 2 set-aside webhook event(s).');
    expect(abandoned.out).toContain('berth webhooks retry-abandoned');

    const processed = await env.berth('webhooks', 'list', '--state', 'processed', '--limit', '1');
    expect(processed.out).toMatch(/^stripe\s+evt_done_2\s+invoice\.paid\s+\S+\s+2\s+2030-01-01T00:09:00\.000Z$/m);
    expect(processed.out).toContain('1 of 2 processed webhook event(s).');

    const clerk = JSON.parse(
      (await env.berth('webhooks', 'list', '--state', 'abandoned', '--provider', 'clerk', '--json')).out,
    );
    expect(clerk).toEqual({
      state: 'abandoned',
      total: 1,
      events: [
        expect.objectContaining({
          provider: 'clerk',
          eventId: 'msg_bad',
          attempts: 1,
          lastError: 'UnrecoverableError: Invalid Clerk user: updated_at',
          abandonedAt: '2030-01-01T00:06:00.000Z',
        }),
      ],
    });
    expect(clerk.events[0]).not.toHaveProperty('payload');
    expect((await env.berth('webhooks', 'list', '--state', 'processed', '--provider', 'clerk')).out).toBe(
      'No processed webhook event(s) of clerk.\n',
    );
  });

  it('refuses a wrong invocation with its usage and exit code 2', async () => {
    const wrong = await env.berth('webhooks', 'list', '--state', 'done');
    expect(wrong).toMatchObject({ code: 2, out: '' });
    expect(wrong.err).toContain('--state must be one of unprocessed, abandoned, processed');
    expect(wrong.err).toContain('Usage: berth webhooks list [--state unprocessed|abandoned|processed]');
    expect(await env.berth('webhooks', 'list', '--limit', '0')).toMatchObject({ code: 2 });
    expect(await env.berth('webhooks', 'redeliver', 'stripe')).toMatchObject({
      code: 2,
      err: expect.stringContaining('Usage: berth webhooks redeliver <provider> <eventId>'),
    });
    expect((await env.berth('webhooks', '--help')).out).toContain('berth webhooks retry-abandoned');
  });
});

describe('berth webhooks show', () => {
  it('shows an event with each attempt and how it ended, from the inbox function the console uses', async () => {
    // evt_done_2 failed once, then succeeded at its second attempt.
    await env.inbox.events.updateOne(
      { _id: 'stripe:evt_done_2' },
      {
        $set: {
          attempts: 2,
          attemptErrors: [
            {
              attempt: 1,
              at: new Date(T0 + 8 * 60_000 + 1000),
              error: 'Error: Stripe 503',
              owner: 'billing-1',
              startedAt: new Date(T0 + 8 * 60_000),
            },
          ],
          processedAt: new Date(T0 + 9 * 60_000),
          processedBy: { attempt: 2, owner: 'billing-2', startedAt: new Date(T0 + 8.5 * 60_000) },
        },
      },
    );
    const shown = await env.berth('webhooks', 'show', 'stripe', 'evt_done_2');
    expect(shown.code).toBe(0);
    expect(shown.out).toContain('stripe:evt_done_2 (invoice.paid): processed, 2 attempt(s)');
    expect(shown.out).toMatch(/^1\s+attempt\s+billing-1\s+\S+\s+\S+\s+failed\s+Error: Stripe 503$/m);
    expect(shown.out).toMatch(/^2\s+attempt\s+billing-2\s+\S+\s+2030-01-01T00:09:00.000Z\s+succeeded$/m);
    const json = JSON.parse((await env.berth('webhooks', 'show', 'stripe', 'evt_done_2', '--json')).out) as {
      attemptLog: { outcome: string }[];
      event: Record<string, unknown>;
    };
    expect(json.attemptLog.map((entry) => entry.outcome)).toEqual(['failed', 'succeeded']);
    expect(json.event).not.toHaveProperty('payload');
    expect(await env.berth('webhooks', 'show', 'stripe', 'evt_nope')).toEqual({
      code: 1,
      out: '',
      err: 'No webhook event stripe:evt_nope in the inbox.\n',
    });
  });
});

describe('berth webhooks redeliver', () => {
  it('publishes one unprocessed event again under a new message id', async () => {
    const { code, out } = await env.berth('webhooks', 'redeliver', 'stripe', 'evt_retrying');
    expect(code).toBe(0);
    expect(out).toMatch(
      /^Redelivered stripe:evt_retrying as stripe\/requeue\/1:evt_retrying \(WEBHOOKS sequence \d+\)\.$/m,
    );
    const message = await env.messaging.jsm.streams.getMessage('WEBHOOKS', {
      last_by_subj: 'webhooks.stripe.invoice.payment_failed',
    });
    expect(message?.header.get('Nats-Msg-Id')).toBe('stripe/requeue/1:evt_retrying');
    expect(message?.header.get('Berth-Event-Type')).toBe('invoice.payment_failed');
    expect(message?.json()).toEqual({ id: 'evt_retrying', type: 'invoice.payment_failed' });
    const again = await env.berth('webhooks', 'redeliver', 'stripe', 'evt_retrying', '--json');
    expect(JSON.parse(again.out)).toEqual({
      status: 'redelivered',
      msgId: 'stripe/requeue/2:evt_retrying',
      streamSequence: message!.seq + 1,
      reopened: false,
    });
  });

  it('refuses an unknown event and a processed one, with exit code 1', async () => {
    expect(await env.berth('webhooks', 'redeliver', 'stripe', 'evt_nope')).toEqual({
      code: 1,
      out: '',
      err: "No webhook event stripe:evt_nope in the inbox: nothing to redeliver (resend it from the provider's dashboard).\n",
    });
    expect(await env.berth('webhooks', 'redeliver', 'stripe', 'evt_done_1')).toEqual({
      code: 1,
      out: '',
      err: 'Webhook event stripe:evt_done_1 was already processed at 2030-01-01T00:07:00.000Z: not redelivered, the consumer would skip it.\n',
    });
  });
});

describe('berth webhooks retry-abandoned', () => {
  it('reopens every set-aside event and publishes it again; running it again changes nothing', async () => {
    const before = (await env.messaging.jsm.streams.info('WEBHOOKS')).state.messages;
    const first = await env.berth('webhooks', 'retry-abandoned');
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/^PROVIDER\s+EVENT ID\s+TYPE\s+PUBLISHED AS$/m);
    expect(first.out).toMatch(
      /^stripe\s+evt_set_aside\s+charge\.dispute\.created\s+stripe\/requeue\/1:evt_set_aside$/m,
    );
    expect(first.out).toMatch(/^clerk\s+msg_bad\s+user\.updated\s+clerk\/requeue\/1:msg_bad$/m);
    expect(first.out).toContain('Reopened 2 set-aside webhook event(s); 2 published again.');
    expect((await env.messaging.jsm.streams.info('WEBHOOKS')).state.messages).toBe(before + 2);
    expect(await env.inbox.events.findOne({ _id: 'stripe:evt_set_aside' })).toMatchObject({
      attempts: 0,
      abandonedAt: null,
      alertedAt: null,
      reopenedAt: expect.any(Date),
      requeueCount: 1,
      lastError: 'Error: Stripe 503',
    });

    expect(await env.berth('webhooks', 'retry-abandoned')).toEqual({
      code: 0,
      err: '',
      out: 'Reopened 0 set-aside webhook event(s); 0 published again.\n',
    });
    expect((await env.messaging.jsm.streams.info('WEBHOOKS')).state.messages).toBe(before + 2);
    expect((await env.berth('webhooks', 'list', '--state', 'abandoned')).out).toBe('No set-aside webhook event(s).\n');
  });
});

describe('berth crons list', () => {
  it('says when no cron is registered, then shows schedule, zone, last and next tick and the leader', async () => {
    expect(await env.berth('crons', 'list')).toEqual({
      code: 0,
      err: '',
      out: 'No crons registered (a service registers its crons when it starts).\n',
    });

    await registerCronSchedules({
      messaging: env.scheduler,
      owner: 'scheduler',
      logger: silent,
      definitions: [
        { name: 'WebhookRecoveryCronJob', pattern: '*/10 * * * *', queue: 'platform-cron-queue' },
        { name: 'WebhookRetentionCronJob', pattern: '30 3 * * *', queue: 'platform-cron-queue' },
        { name: 'SendWeeklySummariesCronJob', pattern: '0 9 * * mon', timeZone: 'Europe/Paris' },
      ],
    });
    const noLeader = await env.berth('crons', 'list');
    expect(noLeader.out).toContain('Leader: none (no scheduler holds the lease: ticks are not being emitted)');

    // The lease, as a scheduler replica holds it: only the scheduler's NATS user may write it.
    const buckets = await openCronBuckets(env.scheduler.js);
    const lease = new LeaderLease({ buckets, holder: 'scheduler-0:4242:abc123', ttlMs: 10_000, logger: silent });
    expect(await lease.maintain()).toBe(true);
    await new LastTickStore(buckets.lastTicks, 'scheduler-0').record(
      'WebhookRecoveryCronJob',
      new Date('2030-01-01T00:10:00.000Z'),
    );
    try {
      const { code, out } = await env.berth('crons', 'list');
      expect(code).toBe(0);
      expect(out).toMatch(/^NAME\s+SCHEDULE\s+ZONE\s+LAST TICK\s+NEXT TICK\s+QUEUE\s+OWNER$/m);
      expect(out).toMatch(
        /^SendWeeklySummariesCronJob\s+0 9 \* \* mon\s+Europe\/Paris\s+-\s+\d{4}-\d\d-\d\dT(07|08):00:00\.000Z\s+cron-queue\s+scheduler$/m,
      );
      expect(out).toMatch(
        /^WebhookRecoveryCronJob\s+\*\/10 \* \* \* \*\s+UTC\s+2030-01-01T00:10:00\.000Z\s+\d{4}-\d\d-\d\dT\d\d:\d0:00\.000Z\s+platform-cron-queue\s+scheduler$/m,
      );
      expect(out).toMatch(
        /^WebhookRetentionCronJob\s+30 3 \* \* \*\s+UTC\s+-\s+\d{4}-\d\d-\d\dT03:30:00\.000Z\s+platform-cron-queue\s+scheduler$/m,
      );
      expect(out).toContain('Leader: scheduler-0:4242:abc123');
      const rows = JSON.parse((await env.berth('crons', 'list', '--json')).out);
      expect(rows.map((row: { name: string; leader: string }) => [row.name, row.leader])).toEqual([
        ['SendWeeklySummariesCronJob', 'scheduler-0:4242:abc123'],
        ['WebhookRecoveryCronJob', 'scheduler-0:4242:abc123'],
        ['WebhookRetentionCronJob', 'scheduler-0:4242:abc123'],
      ]);
    } finally {
      await lease.release();
    }
  });
});
