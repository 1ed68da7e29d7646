import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BerthLogger } from '@berth/logger';

/** Options for {@link startHealthServer}. */
export interface HealthServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** True when the replica can do its work (connected to NATS, schedules loaded); leader or not. */
  isReady(): boolean;
  metrics: { render(): Promise<string>; readonly contentType: string };
  logger: BerthLogger;
}

/** A running health server. */
export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves `GET /healthz` (200 while the process runs its event loop), `GET /readyz` (200 when ready, else 503) and
 * `GET /metrics` (Prometheus text).
 */
export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const send = (status: number, body: string, type = 'application/json'): void => {
      response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      response.end(body);
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') return send(405, '{"error":"method not allowed"}');
    if (path === '/healthz') return send(200, '{"status":"ok"}');
    if (path === '/readyz')
      return options.isReady() ? send(200, '{"status":"ready"}') : send(503, '{"status":"not ready"}');
    if (path === '/metrics') {
      options.metrics.render().then(
        (text) => send(200, text, options.metrics.contentType),
        (error: unknown) => {
          options.logger.error({ err: error }, 'Could not render metrics');
          send(500, '{"error":"metrics unavailable"}');
        },
      );
      return;
    }
    send(404, '{"error":"not found"}');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
