import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { BerthLogger } from '@berth/logger';
import { splitServerCredentials } from './server-credentials';

/** Options for {@link connectMessaging}. */
export interface MessagingConnectionOptions {
  /**
   * One URL or several, comma-separated (`nats://a:4222,nats://b:4222`). A user and password in the URLs
   * (`nats://billing-sync:secret@a:4222`) authenticate the connection and name its inbox prefix (see
   * {@link inboxPrefixFor}); they are taken out of the server list, so they never reach a log line. `tls://a:4222`
   * requires TLS.
   */
  servers: string;
  /** Connection name shown by `nats server report connections`. */
  name: string;
  logger: BerthLogger;
  /** How long a JetStream API call or publish may wait for its answer, in ms. */
  timeoutMs?: number;
  /**
   * How often the client pings its server, in ms (default {@link DEFAULT_PING_INTERVAL_MS}). A frozen server (SIGSTOP,
   * a stalled VM) keeps the TCP connection open and answers nothing: only a ping that goes unanswered tells, after
   * `maxPingsOut` intervals, and the client then moves to another server of the cluster.
   */
  pingIntervalMs?: number;
  /** Pings without a pong after which the connection is taken for dead (default {@link DEFAULT_MAX_PINGS_OUT}). */
  maxPingsOut?: number;
  /**
   * Longest wait for a server to greet a new connection, in ms (default {@link DEFAULT_CONNECT_TIMEOUT_MS}). A frozen
   * server's kernel still accepts the TCP connection, so a reconnect that tries it first waits this long before the
   * next server.
   */
  connectTimeoutMs?: number;
  /**
   * Whether each request captures the stack of its caller, so that a timeout's error shows where the request was
   * made (nats.js's default). Off by default: the capture is an `Error` made per request, a few percent of a busy
   * worker's or gateway's CPU, and Berth's errors are told apart by their codes and log fields, not their stacks.
   */
  asyncTraces?: boolean;
}

/**
 * Every 2 s, dead after 2 unanswered: a frozen server is left 4 to 6 s after it stopped answering (the NATS client's
 * own default, 2 minutes and 2 pings, would hold every publish on it for up to 6 minutes), while a server or client
 * briefly slowed by load still has 4 s to answer.
 */
export const DEFAULT_PING_INTERVAL_MS = 2_000;
/** See {@link DEFAULT_PING_INTERVAL_MS}. */
export const DEFAULT_MAX_PINGS_OUT = 2;
/** A greeting takes milliseconds on a working server, even over TLS across zones. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 2_000;

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
 * The inbox prefix of a NATS user, `_INBOX_<user>`: replies to its requests (JetStream API answers, pulled
 * messages) arrive under it, so the server can let each user subscribe to its own replies only
 * (deploy/nats/auth.conf). Without a user, the default `_INBOX`.
 */
export function inboxPrefixFor(user: string | undefined): string | undefined {
  return user === undefined ? undefined : `_INBOX_${user}`;
}

/**
 * Connects to NATS and opens JetStream. Reconnects forever after a successful first connection (a service keeps
 * running through a NATS restart and reports not-ready meanwhile); the first connection must succeed.
 */
export async function connectMessaging(options: MessagingConnectionOptions): Promise<Messaging> {
  const { servers, user, pass, tls } = splitServerCredentials(options.servers);
  const nc = await connect({
    servers,
    // `tls://`: TLS required, the server's certificate checked against Node's CAs (plus NODE_EXTRA_CA_CERTS).
    ...(tls ? { tls: {} } : {}),
    ...(user === undefined ? {} : { user, pass, inboxPrefix: inboxPrefixFor(user) }),
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    timeout: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    pingInterval: options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS,
    maxPingOut: options.maxPingsOut ?? DEFAULT_MAX_PINGS_OUT,
    noAsyncTraces: !(options.asyncTraces ?? false),
  });
  let connected = true;
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') connected = false;
      else if (status.type === 'reconnect') connected = true;
      if (status.type === 'disconnect' || status.type === 'reconnect' || status.type === 'error') {
        options.logger.warn(
          { natsStatus: status.type, server: 'server' in status ? status.server : undefined },
          `NATS ${status.type}`,
        );
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
