/**
 * Test support (not shipped in the service's code path): a real nats-server per test file, and gateway apps
 * listening on 127.0.0.1:0 against it.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { NodeGuard } from '@berth/http-guard';
import type { StoredMsg } from '@nats-io/jetstream';
import { createLogger, type BerthLogger } from '@berth/logger';
import { connectMessaging, ensureStream, webhooksStream, type Messaging } from '@berth/messaging';
import { startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import type { Clock } from '@berth/contract';
import { startHealthServer, type HealthServer } from '@berth/metrics';
import { createGatewayApp } from './app';
import { loadConfig, type GatewayConfig } from './config';
import { GatewayMetrics } from './metrics';
import { JetStreamWebhookPublisher } from './publisher';

/** The stream every gateway test publishes into. */
export const STREAM = webhooksStream().name;

/** A `whsec_<base64>` secret as Svix / Standard Webhooks senders issue them (Stripe's are opaque strings). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** A unique id with a prefix, so tests never collide inside the duplicate window. */
export function uniqueId(prefix: string): string {
  return `${prefix}_${randomBytes(8).toString('hex')}`;
}

/** Unix seconds, `offsetSeconds` away from now. */
export function unixSeconds(offsetSeconds = 0): number {
  return Math.floor(Date.now() / 1000) + offsetSeconds;
}

/** A silent logger for tests. */
export function quietLogger(): BerthLogger {
  return createLogger({ service: 'gateway-test', level: 'silent' });
}

/** One nats-server with the `WEBHOOKS` stream and a client connection, shared by one test file. */
export interface NatsFixture {
  readonly server: NatsServerHandle;
  readonly messaging: Messaging;
  /** Messages in the stream now. */
  messageCount(): Promise<number>;
  /** The last message stored on `subject`. */
  lastMessage(subject: string): Promise<StoredMsg>;
  /** Removes every message (dedupe still relies on unique ids per test). */
  purge(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts nats-server (JetStream, fsync always) on a free port, connects, and provisions the stream.
 * @param binDir folder of the nats-server binary: `defaultToolsBinDir(process.env.BERTH_TOOLS_DIR)` in a test file.
 */
export async function startNatsFixture(binDir: string): Promise<NatsFixture> {
  const server = await startNatsServer({ binDir });
  try {
    const messaging = await connectMessaging({
      servers: server.url,
      name: 'gateway-test',
      logger: quietLogger(),
      timeoutMs: 2000,
    });
    await ensureStream(messaging.jsm, webhooksStream());
    return {
      server,
      messaging,
      messageCount: async () => (await messaging.jsm.streams.info(STREAM)).state.messages,
      lastMessage: (subject) =>
        messaging.jsm.streams.getMessage(STREAM, { last_by_subj: subject }) as Promise<StoredMsg>,
      purge: async () => {
        await messaging.jsm.streams.purge(STREAM);
      },
      async close() {
        await messaging.close();
        await server.stop();
      },
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** A gateway app listening on 127.0.0.1 with a random port. */
export interface TestGateway {
  readonly baseUrl: string;
  /** Where `/healthz`, `/readyz` and `/metrics` are served (the health port). */
  readonly healthUrl: string;
  readonly config: GatewayConfig;
  readonly metrics: GatewayMetrics;
  readonly publisher: JetStreamWebhookPublisher;
  /** The webhook listener served on `baseUrl` (its `routes` list what it serves). */
  readonly app: NodeGuard;
  /** POSTs `body` to `/webhooks/<provider>`. */
  post(provider: string, body: string | Buffer, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

/** Options for {@link startGateway}. */
export interface StartGatewayOptions {
  /** Environment for `loadConfig` (NATS_URL is filled in). */
  readonly env: Record<string, string | undefined>;
  readonly clock?: Clock;
  /** Silent by default. */
  readonly logger?: BerthLogger;
}

/** A JSON logger at `info` whose lines are kept in `lines`, to check what the gateway logs. */
export function capturingLogger(): { logger: BerthLogger; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger({
    service: 'gateway-test',
    level: 'info',
    format: 'json',
    destination: { write: (line: string) => void lines.push(line) },
  });
  return { logger, lines };
}

/** Builds the app with `createGatewayApp` on the fixture's connection and listens on 127.0.0.1:0. */
export async function startGateway(nats: NatsFixture, options: StartGatewayOptions): Promise<TestGateway> {
  const config = loadConfig({ NATS_URL: nats.server.url, ...options.env });
  const metrics = new GatewayMetrics({ providerNames: config.knownProviderNames });
  const publisher = new JetStreamWebhookPublisher({
    messaging: nats.messaging,
    streamName: STREAM,
    timeoutMs: config.publishTimeoutMs,
    batching: config.batching,
    resendCopyAfterMs: config.resendCopyAfterMs,
  });
  const app = createGatewayApp({
    config,
    publisher,
    logger: options.logger ?? quietLogger(),
    clock: options.clock,
    metrics,
  });
  const server: Server = createServer(app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  // The health server the service shell gives the gateway in production, on the gateway's registry.
  const health: HealthServer = await startHealthServer({
    port: 0,
    host: '127.0.0.1',
    registry: metrics.registry,
    readiness: () => publisher.isReady(),
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    healthUrl: `http://127.0.0.1:${health.port}`,
    config,
    metrics,
    publisher,
    app,
    post: (provider, body, headers = {}) =>
      fetch(`${baseUrl}/webhooks/${provider}`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', ...headers },
      }),
    close: () =>
      Promise.all([
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
        health.close(),
      ])
        .then(() => undefined)
        .finally(() => publisher.close()),
  };
}

/** Reads one sample of `webhook_inbound_total` from the Prometheus text. */
export function inboundCount(metricsText: string, provider: string, outcome: string): number {
  const line = metricsText
    .split('\n')
    .find((l) => l.startsWith(`webhook_inbound_total{provider="${provider}",outcome="${outcome}"}`));
  return line === undefined ? Number.NaN : Number(line.split(' ').pop());
}
