/**
 * What the inbox-cron tests share: a nats-server and a FerretDB of their own, stream WEBHOOKS, the Stripe stand-in,
 * billing-sync running in-process with a small retry policy (the real consumer: JetStream transport, inbox,
 * Stripe calls), and the `berth` CLI run in-process against the same servers.
 */
import { MongoClient, type Db } from 'mongodb';
import type { WebhookWorkerApp } from '@berth/webhook-handlers';
import {
  defaultToolsBinDir,
  startFerretDb,
  startNatsServer,
  type FerretDbHandle,
  type NatsServerHandle,
} from '@berth/local-infra';
import { createLogger, LogContextStore, type BerthLogger } from '@berth/logger';
import { connectMessaging, ensureStream, webhooksStream, type Messaging, type RetryPolicy } from '@berth/messaging';
import { ensureInboxIndexes, inboxCollections, type Inbox, type InboxEventDocument } from '@berth/inbox';
import { captureLogLines, newInboxRow, OutcomeLog } from '@berth/inbox/testing';
import { createBillingSyncApp, createStripeClient, loadConfig } from '@berth/billing-sync';
import { runCliCaptured } from '@berth/cli/src/testing';
import { StripeStandIn } from '../support/stripe-stand-in';

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

/** A clock the test moves: real time plus an offset it raises. */
export function shiftedClock(offsetMs = 0): { clock: () => Date; advance(ms: number): void } {
  let offset = offsetMs;
  return { clock: () => new Date(Date.now() + offset), advance: (ms) => void (offset += ms) };
}

/** The servers, billing-sync and the CLI of one test file. */
export interface InboxCronsEnv {
  nats: NatsServerHandle;
  ferret: FerretDbHandle;
  mongo: MongoClient;
  db: Db;
  inbox: Inbox;
  messaging: Messaging;
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
  consumerClock?: () => Date;
  consumer?: boolean;
}): Promise<InboxCronsEnv> {
  const [nats, ferret] = await Promise.all([startNatsServer({ binDir }), startFerretDb({ binDir })]);
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
  const messaging = await connectMessaging({ servers: nats.url, name: options.name, logger });
  await ensureStream(messaging.jsm, webhooksStream());
  const outcomes = new OutcomeLog();
  let app: WebhookWorkerApp | null = null;
  if (options.consumer !== false) {
    const config = loadConfig({
      NATS_URL: nats.url,
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
      messaging,
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
  const config = { natsUrl: nats.url, mongoUrl: ferret.url, mongoDb: db.databaseName };
  return {
    nats,
    ferret,
    mongo,
    db,
    inbox,
    messaging,
    standIn,
    app,
    outcomes,
    logs: captured.lines,
    logger,
    berth: (...argv) => runCliCaptured(argv, config),
    async stop() {
      await app?.close();
      await messaging.close();
      await mongo.close();
      await standIn.stop();
      await Promise.all([ferret.stop(), nats.stop()]);
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
