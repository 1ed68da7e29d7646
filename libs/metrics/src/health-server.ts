import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { nodeGuard, type GuardRefusal, type NodeRouteHandler } from '@berth/http-guard';
import type { MetricsErrorLogger } from './registry-helpers';

/** The paths {@link startHealthServer} serves (GET and HEAD), each to anyone who reaches its port. */
export const HEALTH_SERVER_PATHS = ['/healthz', '/readyz', '/metrics'] as const;

/** Options for {@link startHealthServer}. */
export interface HealthServerOptions {
  /** 0 picks a free port (tests); services use `HEALTH_PORT`, 9464 by default. */
  port: number;
  /** Default `0.0.0.0` (probes and scrapes come from outside the container). */
  host?: string;
  /** The process's registry, rendered on `GET /metrics`. */
  registry: Registry;
  /**
   * True when the process can do its work now (connected, consuming, not shutting down). A throw or a rejection
   * counts as not ready.
   */
  readiness: () => boolean | Promise<boolean>;
  logger?: MetricsErrorLogger;
}

/** A running health server. */
export interface HealthServer {
  /** The port it listens on (the one picked when `port` was 0). */
  readonly port: number;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/**
 * Serves, for services that take no HTTP requests of their own (consumers, workers, the scheduler):
 * - `GET /healthz`: 200 while the event loop runs (Kubernetes' liveness probe);
 * - `GET /readyz`: 200 when `readiness()` says so, else 503 (readiness probe; compose health check);
 * - `GET /metrics`: the Prometheus text exposition of `registry`.
 * Anything else is 404, and so is any other spelling of those paths (`/METRICS`, `/metrics/`, `//metrics`: the
 * shared guard, `nodeGuard`); methods other than GET and HEAD are 405.
 */
export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const handlers = healthHandlers(options);
  const guard = nodeGuard(
    [{ routes: HEALTH_SERVER_PATHS.map((path) => ({ method: 'GET', path, serve: handlers[path] })), access: 'public' }],
    { refuse, onError: (error) => options.logger?.warn({ err: error }, 'Health request failed') },
  );
  const server = createServer(guard);
  // A scrape or probe never holds the process open at shutdown.
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
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

function send(
  request: IncomingMessage,
  response: ServerResponse,
  status: number,
  body: string,
  contentType = 'application/json',
): void {
  response.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
  response.end(request.method === 'HEAD' ? undefined : body);
}

function refuse(response: ServerResponse, refusal: GuardRefusal): void {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'cache-control': 'no-store' };
  if (refusal.status === 405) headers.allow = refusal.allow.join(', ');
  response.writeHead(refusal.status, headers);
  response.end(refusal.status === 405 ? '{"error":"method_not_allowed"}' : '{"error":"not_found"}');
}

/** What each of {@link HEALTH_SERVER_PATHS} answers. */
function healthHandlers(options: HealthServerOptions): Record<(typeof HEALTH_SERVER_PATHS)[number], NodeRouteHandler> {
  return {
    '/healthz': (request, response) => send(request, response, 200, '{"status":"ok"}'),
    '/readyz': async (request, response) => {
      let ready = false;
      try {
        ready = await options.readiness();
      } catch (error) {
        options.logger?.warn({ err: error }, 'Readiness check failed');
      }
      if (ready) send(request, response, 200, '{"status":"ready"}');
      else send(request, response, 503, '{"status":"not_ready"}');
    },
    '/metrics': async (request, response) => {
      let text: string;
      try {
        text = await options.registry.metrics();
      } catch (error) {
        options.logger?.warn({ err: error }, 'Could not render /metrics');
        return send(request, response, 500, '{"error":"metrics_unavailable"}');
      }
      send(request, response, 200, text, options.registry.contentType);
    },
  };
}
