import type { Clock } from '@berth/contract';
import type { Db } from 'mongodb';
import type { BerthLogger } from '@berth/logger';
import type { Messaging } from '@berth/messaging';
import type { Inbox } from '@berth/inbox';
import type { JetStreamJobProducer } from '@berth/jobs';
import type { OutboundCollections } from '@berth/outbound';
import type { SignedTokens } from './auth/signed-token';
import type { ConsoleTokenVerifier } from './auth/console-tokens';
import type { AuditLog } from './actions/audit-log';
import type { DispatcherClient } from './dispatcher-client';
import type { QueueSampler } from './overview/queue-sampler';

/** Everything the console's routes and actions use, built once by `runConsole` (tests build their own). */
export interface ConsoleDependencies {
  db: Db;
  inbox: Inbox;
  outbound: OutboundCollections;
  messaging: Messaging;
  /** Queues jobs again (dead-letter replay); never provisions streams (the services own their sizing). */
  jobProducer: JetStreamJobProducer;
  logger: BerthLogger;
  /** The console's clock: what it stamps (audit entries, issue statuses) and judges by (tokens, charts). */
  clock: Clock;
  consoleTokens: ConsoleTokenVerifier;
  signedTokens: SignedTokens;
  audit: AuditLog;
  dispatcher: DispatcherClient;
  sampler: QueueSampler;
  /** Lifetime of portal tokens minted without an explicit one. */
  portalTokenTtlSeconds: number;
  jaegerUiUrl?: string;
  /** Readiness URLs of the services, by name. */
  healthUrls: Record<string, string>;
}
