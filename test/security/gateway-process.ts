/**
 * Test support for the gateway's security tests: the real gateway process (`services/gateway/src/main.ts`) on a
 * real nats-server, its log lines captured, and raw sockets for clients that misbehave below HTTP.
 */
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { defaultToolsBinDir } from '@berth/local-infra';
import { startNatsFixture, type NatsFixture } from '../../services/gateway/src/test-harness';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';

export const natsBinDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);

/** A gateway process with its NATS fixture. */
export interface GatewayProcess {
  readonly nats: NatsFixture;
  readonly service: ServiceProcess;
  readonly port: number;
  readonly healthPort: number;
  readonly baseUrl: string;
  /** Every line the process wrote so far. */
  readonly lines: string[];
  /** Resident set size of the process now, in bytes (from /proc). */
  rssBytes(): number;
  stop(): Promise<void>;
}

/** Starts nats-server and the gateway process with `env` (NATS_URL, ports and log format are filled in). */
export async function startGatewayProcess(env: Record<string, string>): Promise<GatewayProcess> {
  const nats = await startNatsFixture(natsBinDir);
  const lines: string[] = [];
  let service: ServiceProcess;
  try {
    service = await startServiceProcess({
      service: 'gateway',
      // No consumer runs beside this gateway: its providers are stored only, or it would wait for one.
      env: {
        PORT: '0',
        HEALTH_PORT: '0',
        HOST: '127.0.0.1',
        NATS_URL: nats.server.url,
        LOG_LEVEL: 'info',
        WEBHOOK_STORE_ONLY_PROVIDERS: 'stripe,clerk,acme',
        ...env,
      },
      readyLine: /Gateway listening on :\d+/,
      timeoutMs: 60_000,
    });
  } catch (error) {
    await nats.close();
    throw error;
  }
  const capture = (chunk: Buffer): void => {
    lines.push(
      ...chunk
        .toString('utf8')
        .split('\n')
        .filter((line) => line !== ''),
    );
  };
  service.process.child.stdout?.on('data', capture);
  service.process.child.stderr?.on('data', capture);
  const listening = JSON.parse((await service.process.waitForLine(/^\{.*Gateway listening on :\d+.*\}$/, 1000))[0]) as {
    port: number;
    healthPort: number;
  };
  const port = listening.port;
  const pid = service.process.child.pid!;
  return {
    nats,
    service,
    port,
    healthPort: listening.healthPort,
    baseUrl: `http://127.0.0.1:${port}`,
    lines,
    rssBytes: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024,
    async stop() {
      await service.stop();
      await nats.close();
    },
  };
}

/** A raw TCP client: write what you like, read whatever comes back until the server closes. */
export interface RawClient {
  readonly socket: Socket;
  /** Everything received so far. */
  received(): string;
  /** Resolves with everything received once the server ends the connection (or it errors), and when. */
  readonly closed: Promise<{ text: string; at: number }>;
}

/** Opens a raw connection to 127.0.0.1:`port` with Nagle off, so each write leaves as its own segment. */
export async function rawClient(port: number): Promise<RawClient> {
  const socket = connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let text = '';
  socket.on('data', (chunk) => (text += chunk.toString('latin1')));
  const closed = new Promise<{ text: string; at: number }>((resolve) => {
    const done = (): void => resolve({ text, at: Date.now() });
    socket.once('end', done);
    socket.once('close', done);
    socket.once('error', done);
  });
  return { socket, received: () => text, closed };
}

/** Request head of a `POST /webhooks/<provider>` announcing `contentLength` bytes. */
export function postHead(provider: string, contentLength: number, extra: Record<string, string> = {}): string {
  const headers = Object.entries({
    host: '127.0.0.1',
    'content-type': 'application/json',
    'content-length': String(contentLength),
    ...extra,
  });
  return `POST /webhooks/${provider} HTTP/1.1\r\n${headers.map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`;
}

/** Waits for the end of the current event-loop turn's I/O. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
