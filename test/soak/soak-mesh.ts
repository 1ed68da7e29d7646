/**
 * What both soaks (`npm run soak`, `npm run soak -- --cluster`) do with the local mesh of `npm start`: the
 * environment they run it with, a log file fed without blocking, waiting until every service and replica is ready,
 * and the outbound endpoint of the loopback receiver.
 */
import { appendFile } from 'node:fs/promises';
import { readServiceHealth, type ServiceHealth } from '../../services/cli/src/commands/status/read-status';
import type { LocalMeshHandle } from '../../deploy/local/local-mesh';

const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** The mesh's environment: the soak's receiver allowed as an outbound target, no rate limit, fast retries. */
export function soakMeshEnv(receiverUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = process.env;
  return {
    PATH: env.PATH,
    HOME: env.HOME,
    BERTH_TOOLS_DIR: env.BERTH_TOOLS_DIR,
    LOG_FORMAT: 'json',
    LOG_LEVEL: env.SOAK_LOG_LEVEL ?? 'warn',
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8',
    // Deliveries go to ports 80 and 443 only unless listed: the receiver listens on a free port.
    OUTBOUND_ALLOWED_PORTS: new URL(receiverUrl).port,
    OUTBOUND_RETRY_SCHEDULE_MS: '0,1000,2000,5000,10000,30000,60000',
    WEBHOOK_RATE_LIMIT_PER_MINUTE: '100000',
    METRICS_READ_CACHE_MS: '0',
    ...extra,
  };
}

/** The mesh's output, appended to `file` every 500 ms (a write per line would slow the services' pipes). */
export class MeshLog {
  private pending = '';
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly file: string) {
    this.timer = setInterval(() => void this.flush(), 500);
  }

  write(line: string): void {
    this.pending += `${line}\n`;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private async flush(): Promise<void> {
    const text = this.pending;
    this.pending = '';
    if (text) await appendFile(this.file, text);
  }
}

/** Resolves with every service's health once each answers /readyz 200; rejects naming the others after `timeoutMs`. */
export async function waitUntilReady(mesh: LocalMeshHandle, timeoutMs: number): Promise<ServiceHealth[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const health = await readServiceHealth(mesh.mesh.health);
    if (health.every((service) => service.state === 'ready')) return health;
    if (Date.now() > deadline)
      throw new Error(
        `not ready: ${health
          .filter((service) => service.state !== 'ready')
          .map((service) => `${service.name} ${service.state} ${service.detail}`)
          .join('; ')}`,
      );
    await pause(1000);
  }
}

/** Creates the receiver's endpoint through the dispatcher's API, with the token npm start generated. */
export async function createReceiverEndpoint(
  mesh: LocalMeshHandle,
  url: string,
  run: string,
): Promise<{ workspaceId: string }> {
  const workspaceId = `soak_${run}_outbound`;
  const response = await fetch(`${mesh.mesh.dispatcherUrl}/v1/endpoints`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${mesh.mesh.dispatcherApiToken}` },
    body: JSON.stringify({ workspaceId, url, eventTypes: ['soak.event'] }),
  });
  if (response.status !== 201)
    throw new Error(`could not create the endpoint: ${response.status} ${await response.text()}`);
  return { workspaceId };
}
