/**
 * Berth's NATS users (deploy/nats/auth.conf, the file compose and Kubernetes run) on a real nats-server: each
 * service's user does its job through the libraries the service uses, and cannot publish the webhooks or jobs it
 * does not own, delete a stream, take the scheduler lease, read another client's replies or forge one.
 */
import { randomBytes } from 'node:crypto';
import { createInbox } from '@nats-io/nats-core';
import { AckPolicy } from '@nats-io/jetstream';
import { startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import {
  connectMessaging,
  ensureConsumer,
  ensureStream,
  jobsStream,
  webhooksStream,
  type Messaging,
} from '@berth/messaging';
import { CRON_BUCKET_NAMES, LeaderLease, openCronBuckets, readLease } from '@berth/cron';
import { completedJobsStream, createJobProducer } from '@berth/jobs';
import {
  ENDPOINT_CHANGED_SUBJECT,
  ensureOutboundStreams,
  FAN_OUT_CONSUMER,
  openEndpointRateWindows,
  OUTBOUND_EVENTS_STREAM,
} from '@berth/outbound';
import { toolsBinDir } from '../support/mesh';
import { authConfOptions, randomNatsPasswords, type NatsUser } from './support/nats-users';

const passwords = randomNatsPasswords('base64url');
const logger = createLogger({ service: 'nats-permissions-test', level: 'silent' });

let nats: NatsServerHandle;
const connections: Messaging[] = [];

function urlOf(user: string, password: string): string {
  return `nats://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${nats.port}`;
}

async function as(user: NatsUser): Promise<Messaging> {
  const messaging = await connectMessaging({
    servers: urlOf(user, passwords[user]),
    name: `permissions-${user}`,
    logger,
    timeoutMs: 2000,
  });
  connections.push(messaging);
  return messaging;
}

beforeAll(async () => {
  nats = await startNatsServer({
    binDir: toolsBinDir,
    ...authConfOptions(passwords),
  });
}, 60_000);

afterAll(async () => {
  await Promise.all(connections.map((messaging) => messaging.close().catch(() => undefined)));
  await nats?.stop();
});

/** Resolves once the server has answered a core publish to `subject` with a permissions violation. */
async function expectPublishDenied(messaging: Messaging, subject: string): Promise<void> {
  const denied = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`publishing ${subject} was not refused`)), 3000);
    void (async () => {
      for await (const status of messaging.nc.status()) {
        if (
          status.type === 'error' &&
          /permissions violation for publish/i.test(String(status.error?.message)) &&
          String(status.error?.message).includes(subject)
        ) {
          clearTimeout(timer);
          return resolve();
        }
      }
    })();
  });
  messaging.nc.publish(subject, 'forged');
  await messaging.nc.flush();
  await denied;
}

/** A JetStream publish must be refused (no PubAck) and leave nothing in any stream. */
async function expectJetStreamPublishDenied(messaging: Messaging, subject: string): Promise<void> {
  await expect(
    messaging.js.publish(subject, 'forged', { msgID: `forged-${randomBytes(4).toString('hex')}`, timeout: 2000 }),
  ).rejects.toThrow();
}

async function expectStreamsIntact(messaging: Messaging, streams: string[]): Promise<void> {
  for (const stream of streams) {
    await expect(messaging.jsm.streams.delete(stream)).rejects.toThrow();
    await expect(messaging.jsm.streams.purge(stream)).rejects.toThrow();
  }
}

describe('NATS users and their permissions (deploy/nats/auth.conf)', () => {
  let operator: Messaging;
  beforeAll(async () => {
    operator = await as('operator');
  });

  it('refuses connections without a user, with a wrong password, or as an unknown user', async () => {
    await expect(connectMessaging({ servers: nats.url, name: 'anonymous', logger, timeoutMs: 2000 })).rejects.toThrow();
    await expect(
      connectMessaging({ servers: urlOf('gateway', 'wrong-password'), name: 'wrong', logger, timeoutMs: 2000 }),
    ).rejects.toThrow();
    await expect(
      connectMessaging({ servers: urlOf('admin', passwords.operator), name: 'unknown', logger, timeoutMs: 2000 }),
    ).rejects.toThrow();
  });

  it('gateway: provisions WEBHOOKS and stores webhooks; publishes no job, deletes no stream', async () => {
    const gateway = await as('gateway');
    await ensureStream(gateway.jsm, webhooksStream());
    const stripe = await gateway.js.publish('webhooks.stripe.invoice.paid', '{}', { msgID: 'stripe:evt_1' });
    const clerk = await gateway.js.publish('webhooks.clerk.user.created', '{}', { msgID: 'clerk:evt_1' });
    expect([stripe.stream, clerk.stream]).toEqual(['WEBHOOKS', 'WEBHOOKS']);
    // A duplicate's first copy, read by its sequence (retry or late resend): WEBHOOKS' messages only.
    const first = await gateway.jsm.streams.getMessage('WEBHOOKS', { seq: stripe.seq });
    expect(first?.header.get('Nats-Msg-Id')).toBe('stripe:evt_1');
    await ensureStream((await as('operator')).jsm, jobsStream());
    await expect(gateway.jsm.streams.getMessage('JOBS', { seq: 1 })).rejects.toThrow(/permissions violation/i);
    await expectJetStreamPublishDenied(gateway, 'jobs.client-queue.SendClientSummaryJob');
    await expectStreamsIntact(gateway, ['WEBHOOKS']);
    await expectPublishDenied(gateway, '_INBOX.forged-pub-ack');
  });

  it('billing-sync: pulls and acks its own consumer, queues billing jobs; forges no webhook, takes no other consumer, reads no other inbox', async () => {
    const billing = await as('billing-sync');
    await ensureConsumer(billing.jsm, {
      stream: 'WEBHOOKS',
      durable: 'billing-sync',
      filterSubjects: ['webhooks.stripe.>'],
      ackWaitMs: 30_000,
    });
    const consumer = await billing.js.consumers.get('WEBHOOKS', 'billing-sync');
    const messages = await consumer.fetch({ max_messages: 1, expires: 2000 });
    const received: string[] = [];
    for await (const message of messages) {
      received.push(message.subject);
      await message.ackAck();
    }
    expect(received).toEqual(['webhooks.stripe.invoice.paid']);

    const producer = createJobProducer({ messaging: billing, logger });
    await expect(
      producer.add(
        'billing-queue',
        'ApplyWorkspaceMemberLimitJob',
        { workspaceId: 'ws_1' },
        { deduplicationId: 'ws_1' },
      ),
    ).resolves.toBeDefined();

    await expectJetStreamPublishDenied(billing, 'webhooks.stripe.customer.subscription.updated');
    await expectJetStreamPublishDenied(billing, 'jobs.client-queue.SendClientSummaryJob');
    // The producer provisioned JOBS_COMPLETED with the other job streams; it runs no job, so records none.
    expect((await billing.jsm.streams.info('JOBS_COMPLETED')).config.subjects).toEqual(['completed-jobs.>']);
    await expectJetStreamPublishDenied(billing, 'completed-jobs.billing-queue');
    await expect(
      ensureConsumer(billing.jsm, {
        stream: 'WEBHOOKS',
        durable: 'identity-sync',
        filterSubjects: ['webhooks.clerk.>'],
        ackWaitMs: 30_000,
      }),
    ).rejects.toThrow();
    await expectStreamsIntact(billing, ['WEBHOOKS', 'JOBS']);
    await expectPublishDenied(billing, createInbox());
    const sniff = billing.nc.subscribe('_INBOX.>');
    await expect(
      (async () => {
        for await (const _message of sniff) return 'received';
        return 'closed';
      })(),
    ).rejects.toThrow(/permissions violation/i);
  });

  it('identity-sync: pulls its own consumer of Clerk events only', async () => {
    const identity = await as('identity-sync');
    await ensureConsumer(identity.jsm, {
      stream: 'WEBHOOKS',
      durable: 'identity-sync',
      filterSubjects: ['webhooks.clerk.>'],
      ackWaitMs: 30_000,
    });
    const messages = await (
      await identity.js.consumers.get('WEBHOOKS', 'identity-sync')
    ).fetch({ max_messages: 1, expires: 2000 });
    const received: string[] = [];
    for await (const message of messages) {
      received.push(message.subject);
      await message.ackAck();
    }
    expect(received).toEqual(['webhooks.clerk.user.created']);
    await expectJetStreamPublishDenied(identity, 'webhooks.clerk.organizationMembership.created');
    await expect(
      identity.jsm.consumers.add('WEBHOOKS', { durable_name: 'sniffer', ack_policy: AckPolicy.Explicit }),
    ).rejects.toThrow();
    await expectStreamsIntact(identity, ['WEBHOOKS']);
  });

  it('scheduler: opens the cron buckets, holds the leader lease, emits cron ticks and requeues webhooks; queues no product job', async () => {
    const scheduler = await as('scheduler');
    await ensureStream(scheduler.jsm, jobsStream());
    const buckets = await openCronBuckets(scheduler.js);
    const lease = new LeaderLease({ buckets, holder: 'scheduler-test:1', ttlMs: 10_000, logger });
    expect(await lease.maintain()).toBe(true);
    expect((await readLease(buckets.lease))?.holder).toBe('scheduler-test:1');
    expect((await scheduler.js.publish('jobs.cron-queue.SendWeeklySummariesCronJob', '{}')).stream).toBe('JOBS');
    expect(
      (await scheduler.js.publish('webhooks.stripe.invoice.paid', '{}', { msgID: 'stripe:evt_1:requeue:1' })).stream,
    ).toBe('WEBHOOKS');
    await expectJetStreamPublishDenied(scheduler, 'jobs.client-queue.SendClientSummaryJob');
    // The platform crons' completed jobs, and no other queue's.
    await ensureStream(scheduler.jsm, completedJobsStream());
    expect((await scheduler.js.publish('completed-jobs.platform-cron-queue', '{}')).stream).toBe('JOBS_COMPLETED');
    await expectJetStreamPublishDenied(scheduler, 'completed-jobs.client-queue');
    await expectStreamsIntact(scheduler, ['WEBHOOKS', 'JOBS']);
  });

  it('app-worker: registers crons, queues and pulls product jobs; cannot take the lease or forge webhooks and platform ticks', async () => {
    const worker = await as('app-worker');
    const buckets = await openCronBuckets(worker.js);
    await buckets.schedules.put('SendWeeklySummariesCronJob', '{"pattern":"0 8 * * 1"}');
    const producer = createJobProducer({ messaging: worker, logger });
    await producer.add('client-queue', 'SendClientSummaryJob', { clientId: 'c_1' });
    await ensureConsumer(worker.jsm, {
      stream: 'JOBS',
      durable: 'jobs-client-queue',
      filterSubjects: ['jobs.client-queue.>'],
      ackWaitMs: 30_000,
    });
    const messages = await (
      await worker.js.consumers.get('JOBS', 'jobs-client-queue')
    ).fetch({ max_messages: 1, expires: 2000 });
    for await (const message of messages) await message.ackAck();

    const leaseSeenByOperator = async () => (await readLease((await openCronBuckets(operator.js)).lease))?.holder;
    const holder = await leaseSeenByOperator();
    expect(holder).toBe('scheduler-test:1');
    await expect(buckets.lease.put('leader', JSON.stringify({ holder: 'app-worker-thief' }))).rejects.toThrow();
    await expect(buckets.lease.delete('leader')).rejects.toThrow();
    expect(await leaseSeenByOperator()).toBe(holder);
    await expectJetStreamPublishDenied(worker, 'webhooks.stripe.invoice.paid');
    await expectJetStreamPublishDenied(worker, 'jobs.platform-cron-queue.WebhookRecoveryCronJob');
    // The records of its completed jobs, not of the platform crons'; the operator (the console) reads them.
    expect((await worker.js.publish('completed-jobs.client-queue', '{}')).stream).toBe('JOBS_COMPLETED');
    await expectJetStreamPublishDenied(worker, 'completed-jobs.platform-cron-queue');
    expect(
      (await operator.jsm.streams.getMessage('JOBS_COMPLETED', { last_by_subj: 'completed-jobs.client-queue' }))
        ?.subject,
    ).toBe('completed-jobs.client-queue');
    await expectStreamsIntact(worker, ['WEBHOOKS', 'JOBS', `KV_${CRON_BUCKET_NAMES.lease}`]);
  });

  it('dispatcher: provisions the outbound streams and its consumers, hears endpoint changes; touches no webhook or job; app-worker sends outbound events', async () => {
    const dispatcher = await as('dispatcher');
    await ensureOutboundStreams(dispatcher);
    expect(
      (await (await as('app-worker')).js.publish('outbound.events.ws_1', '{}', { msgID: 'outbound-1' })).stream,
    ).toBe(OUTBOUND_EVENTS_STREAM);
    await ensureConsumer(dispatcher.jsm, {
      stream: OUTBOUND_EVENTS_STREAM,
      durable: FAN_OUT_CONSUMER,
      filterSubjects: ['outbound.events.>'],
      ackWaitMs: 30_000,
    });
    const heard = new Promise<string>((resolve) => {
      const subscription = dispatcher.nc.subscribe(ENDPOINT_CHANGED_SUBJECT, {
        callback: (_error, message) => resolve(message.string()),
      });
      void subscription;
    });
    await dispatcher.nc.flush();
    operator.nc.publish(ENDPOINT_CHANGED_SUBJECT, 'ep_1');
    expect(await heard).toBe('ep_1');
    await expect(
      dispatcher.jsm.streams.purge('OUTBOUND_DELIVERIES', { filter: 'outbound.deliver.ep_1' }),
    ).resolves.toMatchObject({ success: true });
    // The endpoints' rate windows: created, read and changed by compare-and-set (a start taken, the next refused).
    const takeRateStart = await openEndpointRateWindows(dispatcher.js);
    expect(await takeRateStart('ep_1', { limit: 1, perMs: 60_000 })).toEqual({ allowed: true });
    expect(await takeRateStart('ep_1', { limit: 1, perMs: 60_000 })).toMatchObject({ allowed: false });
    await expectJetStreamPublishDenied(dispatcher, 'webhooks.stripe.invoice.paid');
    await expectJetStreamPublishDenied(dispatcher, 'jobs.client-queue.SendClientSummaryJob');
    await expectStreamsIntact(dispatcher, ['WEBHOOKS', OUTBOUND_EVENTS_STREAM]);
  });

  it('operator: reads every stream and requeues a webhook; deletes and purges no stream, takes no lease, answers no inbox', async () => {
    const names = (await operator.jsm.streams.names().next()).sort();
    expect(names).toEqual(
      expect.arrayContaining(['WEBHOOKS', 'JOBS', OUTBOUND_EVENTS_STREAM, `KV_${CRON_BUCKET_NAMES.lease}`]),
    );
    expect(
      (await operator.js.publish('webhooks.stripe.invoice.paid', '{}', { msgID: 'stripe:evt_1:redeliver:1' })).stream,
    ).toBe('WEBHOOKS');
    await expectStreamsIntact(operator, ['WEBHOOKS', 'JOBS']);
    const buckets = await openCronBuckets(operator.js);
    await expect(buckets.lease.put('leader', JSON.stringify({ holder: 'operator' }))).rejects.toThrow();
    await expectPublishDenied(operator, '_INBOX_gateway.forged');
    const info = await operator.jsm.streams.info('WEBHOOKS');
    expect(info.state.messages).toBe(4);
  });
});
