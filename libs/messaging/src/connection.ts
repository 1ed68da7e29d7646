import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { BerthLogger } from '@berth/logger';

/** Options for {@link connectMessaging}. */
export interface MessagingConnectionOptions {
  /** One URL or several, comma-separated (`nats://a:4222,nats://b:4222`). */
  servers: string;
  /** Connection name shown by `nats server report connections`. */
  name: string;
  logger: BerthLogger;
  /** How long a JetStream API call or publish may wait for its answer, in ms. */
  timeoutMs?: number;
}

/** A NATS connection with its JetStream client and manager. */
export interface Messaging {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  /**
   * False from a disconnect until the reconnect, and once closed: what a service's readiness reads, so a load
   * balancer or KEDA stops counting on a replica that cannot reach NATS.
   */
  isConnected(): boolean;
  /** Flushes pending publishes and closes the connection. */
  close(): Promise<void>;
}

/**
 * Connects to NATS and opens JetStream. Reconnects forever after a successful first connection (a service keeps
 * running through a NATS restart and reports not-ready meanwhile); the first connection must succeed.
 */
export async function connectMessaging(options: MessagingConnectionOptions): Promise<Messaging> {
  const nc = await connect({
    servers: options.servers.split(',').map((server) => server.trim()),
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    timeout: options.timeoutMs ?? 5000,
  });
  let connected = true;
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') connected = false;
      else if (status.type === 'reconnect') connected = true;
      if (status.type === 'disconnect' || status.type === 'reconnect' || status.type === 'error') {
        options.logger.warn({ natsStatus: status.type, server: 'server' in status ? status.server : undefined }, `NATS ${status.type}`);
      }
    }
    connected = false;
  })();
  const js = jetstream(nc, { timeout: options.timeoutMs ?? 5000 });
  const jsm = await jetstreamManager(nc, { timeout: options.timeoutMs ?? 5000 });
  return {
    nc,
    js,
    jsm,
    isConnected: () => connected && !nc.isClosed(),
    async close() {
      if (!nc.isClosed()) await nc.drain();
    },
  };
}
