import type { WebhookRegistry } from '../discovery/webhook-registry';

/** Runs an application's webhook handlers: consumes their providers' events, or delivers them in-process. */
export interface WebhookDriver {
  /** Starts consuming the registry's providers. */
  start(registry: WebhookRegistry): Promise<void>;
  /** Stops taking events and lets running handlers finish, up to `graceMs`. */
  stop(graceMs: number): Promise<void>;
  /** Whether every consumer it started is still pulling (a service's readiness includes it). */
  healthy(): boolean;
}
