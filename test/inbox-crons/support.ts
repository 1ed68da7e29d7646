/**
 * What the inbox-cron tests share: a nats-server and a FerretDB of their own, stream WEBHOOKS, the Stripe stand-in,
 * billing-sync running in-process with a small retry policy (the real consumer: JetStream transport, inbox,
 * Stripe calls), and the `berth` CLI run in-process against the same servers. nats-server runs Berth's NATS users:
 * billing-sync connects as its own, the recovery cron and the lease as the scheduler (`scheduler`), the CLI and the
 * test itself (`messaging`: it publishes webhooks and reads the stream) as the operator; stopping fails when
 * nats-server refused anything.
 */
import type { Clock } from '@berth/contract';
import { MongoClient, type Db } from 'mongodb';
import type { WebhookWorkerApp } from '@berth/webhook-handlers';
import { defaultToolsBinDir, startFerretDb, type FerretDbHandle, type NatsServerHandle } from '@berth/local-infra';
import { createLogger, LogContextStore, type BerthLogger } from '@berth/logger';
import { connectMessaging, ensureStream, webhooksStream, type Messaging, type RetryPolicy } from '@berth/messaging';
import { ensureInboxIndexes, inboxCollections, type Inbox, type InboxEventDocument } from '@berth/inbox';
import { captureLogLines, newInboxRow, OutcomeLog } from '@berth/inbox/testing';
import { createBillingSyncApp, createStripeClient, loadConfig } from '@berth/billing-sync';
import { runCliCaptured } from '@berth/cli/src/testing';
import { StripeStandIn } from '../support/stripe-stand-in';
import { startNatsWithUsers } from '../support/nats-with-users';

export const binDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);

/**
 * A retry policy without jitter, so the test knows every nak delay: `base · 2^(n−1)` capped at `max`, 11 attempts a
 * round like {@link WEBHOOK_RETRY_POLICY}, in milliseconds instead of minutes.
 */
export function testRetryPolicy(options: { maxAttempts?: number; baseMs: number; maxMs?: number }): RetryPolicy {
  return {
    maxAttempts: options.maxAttempts ?? 11,
    delayAfter: (failed) =>
      Math.min(options.baseMs * 2 ** Math.max(0, failed - 1), options.maxMs ?? Number.POSITIVE_INFINITY),
  };
}

/** The servers, billing-sync and the CLI of one test file. */
export interface InboxCronsEnv {
  nats: NatsServerHandle;
  ferret: FerretDbHandle;
  mongo: MongoClient;
  db: Db;
  inbox: Inbox;
  /** The operator's connection: the test publishes webhooks and reads the streams through it. */
  messaging: Messaging;
  /** The scheduler's connection: the platform crons (recovery) and the leader lease run through it. */
  scheduler: Messaging;
  standIn: StripeStandIn;
  /** Null when started with `consumer: false`. */
  app: WebhookWorkerApp | null;
  /** billing-sync's transport outcomes per event id. */
  outcomes: OutcomeLog;
  /** Every JSON line billing-sync logged. */
  logs: Record<string, unknown>[];
  logger: BerthLogger;
  /** Runs `berth <argv…>` in-process against these servers. */
  berth(...argv: string[]): Promise<{ code: number; out: string; err: string }>;
  stop(): Promise<void>;
}

/** Starts nats-server and FerretDB, stream WEBHOOKS, the inbox indexes, the Stripe stand-in and billing-sync. */
export async function startInboxCronsEnv(options: {
  name: string;
  retryPolicy?: RetryPolicy;
  consumerClock?: Clock;
  consumer?: boolean;
}): Promise<InboxCronsEnv> {
  const [users, ferret] = await Promise.all([startNatsWithUsers({ binDir }), startFerretDb({ binDir })]);
  const nats = users.server;
  const standIn = new StripeStandIn();
  await standIn.start();
  const mongo = await MongoClient.connect(ferret.url, { maxPoolSize: 16 });
  const db = mongo.db(`${options.name}_${process.pid}`);
  const inbox = inboxCollections(db);
  await ensureInboxIndexes({ inbox });
  const captured = captureLogLines();
  const logContext = new LogContextStore();
  const logger = createLogger({
    service: 'billing-sync',
    level: 'info',
    context: logContext,
    destination: captured.destination,
  });
  const messaging = await connectMessaging({ servers: users.urlAs('operator'), name: options.name, logger });
  const scheduler = await connectMessaging({
    servers: users.urlAs('scheduler'),
    name: `${options.name}-scheduler`,
    logger,
  });
  const billingSync = await connectMessaging({
    servers: users.urlAs('billing-sync'),
    name: `${options.name}-billing-sync`,
    logger,
  });
  await ensureStream(billingSync.jsm, webhooksStream());
  const outcomes = new OutcomeLog();
  let app: WebhookWorkerApp | null = null;
  if (options.consumer !== false) {
    const config = loadConfig({
      NATS_URL: users.urlAs('billing-sync'),
      MONGO_URL: ferret.url,
      MONGO_DB: db.databaseName,
      STRIPE_SECRET_KEY: 'sk_test_standin',
      STRIPE_API_BASE: standIn.url,
      INBOX_LEASE_MS: '5000',
      SHUTDOWN_GRACE_MS: '5000',
      BILLING_SYNC_CONCURRENCY: '4',
    });
    app = await createBillingSyncApp({
      config,
      messaging: billingSync,
      db,
      logger,
      logContext,
      clock: options.consumerClock,
      stripe: createStripeClient(config),
      retryPolicy: options.retryPolicy,
      onOutcome: outcomes.record,
    });
    await app.listen();
  }
  const config = { natsUrl: users.urlAs('operator'), mongoUrl: ferret.url, mongoDb: db.databaseName };
  return {
    nats,
    ferret,
    mongo,
    db,
    inbox,
    messaging,
    scheduler,
    standIn,
    app,
    outcomes,
    logs: captured.lines,
    logger,
    berth: (...argv) => runCliCaptured(argv, config),
    async stop() {
      await app?.close();
      await Promise.all([messaging.close(), scheduler.close(), billingSync.close()]);
      await mongo.close();
      await standIn.stop();
      await Promise.all([ferret.stop(), users.stop()]);
    },
  };
}

/** A Stripe dispute event as the gateway publishes it: billing-sync reads dispute `disputeId` from Stripe. */
export function disputeEvent(
  eventId: string,
  disputeId: string,
  type = 'charge.dispute.created',
): { provider: string; eventId: string; type: string; body: unknown } {
  return {
    provider: 'stripe',
    eventId,
    type,
    body: {
      id: eventId,
      object: 'event',
      type,
      api_version: '2026-10-28.endive',
      created: 1_893_456_000,
      livemode: false,
      data: { object: { id: disputeId, object: 'dispute' } },
    },
  };
}

/**
 * An inbox row as the tests insert it directly: event `eventId` of `provider`, received now, never attempted, not
 * leased, processed, set aside or requeued, with `fields` over that (attempts, errors, dates, subject, payload).
 */
export function inboxRow(
  provider: string,
  eventId: string,
  type: string,
  fields: Partial<InboxEventDocument> = {},
): InboxEventDocument {
  return {
    ...newInboxRow({ provider, eventId, type, receivedAt: new Date(), payload: JSON.stringify({ id: eventId, type }) }),
    ...fields,
  };
}
