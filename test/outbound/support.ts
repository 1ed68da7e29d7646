/**
 * The servers and the in-process dispatcher of the outbound tests: one nats-server and one FerretDB per test file
 * (free ports, temporary data), a database per test, and a dispatcher with a compressed retry schedule, an
 * injectable clock and an address policy that lets it reach the loopback receivers. nats-server runs Berth's NATS
 * users: the dispatcher connects as `dispatcher`, the product code sending events as `app-worker`, the CLI as the
 * operator; stopping the servers fails when nats-server refused anything.
 */
import { ShiftedClock } from '@berth/contract/testing';
import { waitFor } from '@berth/local-infra/testing';
import { randomBytes } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { startFerretDb, type FerretDbHandle, type NatsServerHandle } from '@berth/local-infra';
import { createLogger, type BerthLogger } from '@berth/logger';
import { connectMessaging, type Messaging } from '@berth/messaging';
import { createMetricsRegistry } from '@berth/metrics';
import {
  createAddressPolicy,
  createEndpoint,
  createOutboundSender,
  listDeliveries,
  outboundCollections,
  startDispatcher,
  type CreateEndpointInput,
  type CreatedEndpoint,
  type DeliveryView,
  type Dispatcher,
  type DispatcherOptions,
  type OutboundCollections,
  type SendOutboundEvent,
} from '@berth/outbound';
import { toolsBinDir } from '../support/mesh';
import { startNatsWithUsers, type NatsWithUsers } from '../support/nats-with-users';
import type { NatsUser } from '../../deploy/local/nats-users';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';
import { WebhookReceiver } from '../support/webhook-receiver';

/** The compressed Svix schedule the tests run: same shape (8 attempts), milliseconds instead of hours. */
export const TEST_RETRY_SCHEDULE_MS = [0, 100, 200, 300, 400, 500, 600, 600];

/** Servers shared by the tests of one file. */
export class OutboundTestServers {
  nats!: NatsServerHandle;
  ferret!: FerretDbHandle;
  mongo!: MongoClient;
  /** The dispatcher's connection (its NATS user). */
  messaging!: Messaging;
  /** Product code's connection, the app-worker's user: what sends outbound events. */
  product!: Messaging;
  private users!: NatsWithUsers;
  readonly logger: BerthLogger = createLogger({
    service: 'outbound-test',
    level: process.env.TEST_LOG_LEVEL ?? 'silent',
  });

  /** Starts nats-server and FerretDB and connects to both. */
  async start(): Promise<void> {
    [this.users, this.ferret] = await Promise.all([
      startNatsWithUsers({ binDir: toolsBinDir }),
      startFerretDb({ binDir: toolsBinDir }),
    ]);
    this.nats = this.users.server;
    this.mongo = await MongoClient.connect(this.ferret.url);
    this.messaging = await connectMessaging({
      servers: this.natsUrlAs('dispatcher'),
      name: 'outbound-test',
      logger: this.logger,
    });
    this.product = await connectMessaging({
      servers: this.natsUrlAs('app-worker'),
      name: 'outbound-test-product',
      logger: this.logger,
    });
  }

  /** The NATS URL with `user`'s credentials. */
  natsUrlAs(user: NatsUser): string {
    return this.users.urlAs(user);
  }

  /** A fresh database. */
  freshDb(): Db {
    return this.mongo.db(`outbound_${randomBytes(4).toString('hex')}`);
  }

  /**
   * A dispatcher process (`services/dispatcher/src/main.ts`) on these servers and database `mongoDb`, reaching the
   * loopback receivers on any port; `env` adds or overrides variables.
   */
  startDispatcherProcess(mongoDb: string, env: Record<string, string> = {}): Promise<ServiceProcess> {
    return startServiceProcess({
      service: 'dispatcher',
      readyLine: /"msg":"Dispatcher ready"/,
      timeoutMs: 45_000,
      env: {
        NATS_URL: this.natsUrlAs('dispatcher'),
        MONGO_URL: this.ferret.url,
        MONGO_DB: mongoDb,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        DISPATCHER_API_TOKEN: 'outbound-process-test-token-0123456789',
        OUTBOUND_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8',
        OUTBOUND_ALLOWED_PORTS: '1-65535',
        ...env,
      },
    });
  }

  /** Closes the connections and stops the servers. */
  async stop(): Promise<void> {
    await this.messaging?.close();
    await this.product?.close();
    await this.mongo?.close();
    await Promise.all([this.ferret?.stop(), this.users?.stop()]);
  }
}

/** An in-process dispatcher on its own database, with what a test needs around it. */
export class TestDispatcher {
  dispatcher!: Dispatcher;
  readonly db: Db;
  readonly collections: OutboundCollections;
  readonly send: SendOutboundEvent;
  readonly registry = createMetricsRegistry();

  constructor(
    private readonly servers: OutboundTestServers,
    readonly clock = new ShiftedClock(),
    private readonly overrides: Partial<DispatcherOptions> = {},
  ) {
    this.db = overrides.db ?? servers.freshDb();
    this.collections = outboundCollections(this.db);
    this.send = createOutboundSender({ js: servers.product.js, clock });
  }

  /** Starts the dispatcher (on `overrides.db` when given, so that several can share one, as replicas do). */
  async start(): Promise<this> {
    this.dispatcher = await startDispatcher({
      messaging: this.servers.messaging,
      logger: this.servers.logger,
      policy: createAddressPolicy({ allowPrivateNetworks: ['127.0.0.0/8'], allowedPorts: ['1-65535'] }),
      registry: this.registry,
      clock: this.clock,
      retrySchedule: TEST_RETRY_SCHEDULE_MS,
      retryJitter: 0,
      timeoutMs: 5000,
      endpointReloadMs: 60_000,
      ...this.overrides,
      db: this.db,
    });
    return this;
  }

  /** Creates an endpoint and waits until the dispatcher runs its lane. */
  async createEndpoint(
    input: Omit<CreateEndpointInput, 'workspaceId'> & { workspaceId?: string },
  ): Promise<CreatedEndpoint> {
    const created = await createEndpoint(
      { collections: this.collections, clock: this.clock },
      { workspaceId: 'ws_test', ...input },
    );
    await this.dispatcher.reloadEndpoints();
    return created;
  }

  /** The delivery of an event (the one endpoint of most tests), with its status and log; undefined before the fan-out. */
  async deliveryOf(eventId: string): Promise<DeliveryView | undefined> {
    return (await listDeliveries({ collections: this.collections }, { eventId }))[0];
  }

  /** Resolves with the delivery of an event once `done` holds for it. */
  async waitForDelivery(
    eventId: string,
    done: (delivery: DeliveryView) => boolean,
    what: string,
    timeoutMs = 15_000,
  ): Promise<DeliveryView> {
    return (await waitFor(() => this.deliveryOf(eventId), {
      what,
      timeoutMs,
      intervalMs: 100,
      until: (delivery) => delivery !== undefined && done(delivery),
    })) as DeliveryView;
  }

  /** Stops the dispatcher. */
  async stop(): Promise<void> {
    await this.dispatcher?.stop(2000);
  }
}

/** A unique idempotency key. */
export function newKey(prefix = 'key'): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`;
}

/**
 * The lifecycle most outbound test files share: servers for the file, and every receiver and dispatcher a test
 * starts through the returned functions stopped after that test. Call at the top level of a test file.
 */
export function outboundTestHarness(): {
  servers: OutboundTestServers;
  receiver(...args: ConstructorParameters<typeof WebhookReceiver>): Promise<WebhookReceiver>;
  dispatcher(clock?: ShiftedClock, overrides?: Partial<DispatcherOptions>): Promise<TestDispatcher>;
} {
  const servers = new OutboundTestServers();
  const receivers: WebhookReceiver[] = [];
  const dispatchers: TestDispatcher[] = [];
  beforeAll(() => servers.start(), 60_000);
  afterEach(async () => {
    await Promise.all(dispatchers.splice(0).map((dispatcher) => dispatcher.stop()));
    await Promise.all(receivers.splice(0).map((receiver) => receiver.stop()));
  });
  afterAll(() => servers.stop());
  return {
    servers,
    async receiver(...args) {
      const started = await new WebhookReceiver(...args).start();
      receivers.push(started);
      return started;
    },
    async dispatcher(clock, overrides) {
      const started = await new TestDispatcher(servers, clock, overrides).start();
      dispatchers.push(started);
      return started;
    },
  };
}
