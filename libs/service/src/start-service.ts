import { createLogger, LogContextStore, type BerthLogger, type LoggerOptions } from '@berth/logger';
import { createMetricsRegistry, startHealthServer, type HealthServer, type Registry } from '@berth/metrics';
import { OwnedResources } from './owned-resources';

/** What a service's `start` is given by {@link startService}. */
export interface ServiceContext {
  /** The service's logger (`service` field = its name), bound to {@link logContext}. */
  readonly logger: BerthLogger;
  /** Carries the fields of the event or job being handled onto every log line written meanwhile. */
  readonly logContext: LogContextStore;
  /** The process's metrics registry (process metrics included), served on `/metrics`. */
  readonly registry: Registry;
  /** Where the shell serves `/healthz`, `/readyz` and `/metrics` (already listening); undefined without `health`. */
  readonly healthPort: number | undefined;
  /**
   * Registers something `start` opened (a MongoDB client, a NATS connection) and returns it. What is owned is closed
   * in reverse order of registration: when `start` throws, and at a stop once the app has stopped.
   */
  own<T>(resource: T, close: (resource: T) => Promise<unknown>): T;
  /**
   * The service's readiness, as `/readyz` of the shell's health server answers it: started, not stopping, and
   * `healthy()`. For a service that serves its probes on its own port (the dispatcher), whose `healthy()` answers at
   * once: a `healthy()` that returns a promise is awaited by the shell's health server only, and `ready()` throws.
   */
  ready(): boolean;
}

/** What a service's `start` resolves with once it works. */
export interface StartedService {
  /**
   * Stops the work (stop pulling, let running handlers finish, stop serving). Called first at a stop; the owned
   * resources and the health server are closed after it.
   */
  close?(): Promise<void>;
  /**
   * Readiness beyond "started and not stopping", e.g. NATS connected and every consumer pulling, or a check that
   * asks a server (the gateway asks JetStream for its stream); a throw or a rejection counts as not ready.
   */
  healthy?(): boolean | Promise<boolean>;
  /**
   * Fields of the ready log line. The shell sets `healthPort` when it serves health: last, or where these fields
   * name it.
   */
  readyFields?: Record<string, unknown>;
}

/** Options of {@link startService}. */
export interface StartServiceOptions<S extends StartedService> {
  /** The `service` field of every log line. */
  name: string;
  /** The logger's level, format (unset: pretty on a terminal, JSON otherwise) and destination (tests). */
  log: { level: string; format?: 'json' | 'pretty'; destination?: LoggerOptions['destination'] };
  /**
   * Where `/healthz`, `/readyz` and `/metrics` are served (port 0: a free one), started before `start` runs so that
   * probes find the process while it connects (not ready yet). Omit for a service that serves them on its own port.
   */
  health?: { port: number; host: string };
  /**
   * Logged once `start` resolved, e.g. `Billing sync ready`, or made from what it resolved with (`Console listening
   * on :3200`); tests and `npm start` wait on it.
   */
  readyMessage: string | ((started: S) => string);
  /** Logged once a stop has closed everything, e.g. `Billing sync stopped`; unset, nothing is logged. */
  stoppedMessage?: string;
  /** Opens the connections (through `own`), builds the app and starts its work. */
  start(context: ServiceContext): Promise<S>;
}

/** A started service. */
export interface RunningService<S extends StartedService> {
  readonly logger: BerthLogger;
  /** Where `/healthz`, `/readyz` and `/metrics` are served; undefined without `health`. */
  readonly healthPort: number | undefined;
  /** What `start` resolved with. */
  readonly started: S;
  /** Readiness turns false, then the app's `close`, the owned resources (reverse order), the health server. */
  stop(): Promise<void>;
}

/**
 * Starts a service in this process: creates its logger and metrics registry, serves health and metrics (not ready
 * yet), runs `start`, and logs `readyMessage`. Ready (`/readyz` 200) means started, not stopping, and `healthy()`.
 * When `start` throws, what it owned and the health server are closed before the error is rethrown.
 *
 * This is the part of the lifecycle tests run in their own process; {@link runService} adds tracing, signals and
 * the exit code around it for `main.ts`.
 */
export async function startService<S extends StartedService>(
  options: StartServiceOptions<S>,
): Promise<RunningService<S>> {
  const logContext = new LogContextStore();
  const logger = createLogger({
    service: options.name,
    level: options.log.level,
    format: options.log.format ?? (process.stdout.isTTY ? 'pretty' : 'json'),
    context: logContext,
    destination: options.log.destination,
  });
  const registry = createMetricsRegistry({ processMetrics: true });
  const state: { started?: S; stopping: boolean } = { stopping: false };
  const owned = new OwnedResources();
  const probe = (): boolean | Promise<boolean> =>
    state.started !== undefined && !state.stopping && (state.started.healthy?.() ?? true);
  const ready = (): boolean => {
    const answer = probe();
    if (typeof answer !== 'boolean') throw new TypeError(`${options.name}: healthy() returns a promise; use health`);
    return answer;
  };
  const health: HealthServer | undefined = options.health
    ? await startHealthServer({
        port: options.health.port,
        host: options.health.host,
        registry,
        readiness: probe,
        logger,
      })
    : undefined;

  let started: S;
  try {
    started = await options.start({
      logger,
      logContext,
      registry,
      healthPort: health?.port,
      own: (resource, close) => owned.add(resource, close),
      ready,
    });
  } catch (error) {
    await owned.closeAll({ quiet: true });
    await health?.close();
    throw error;
  }
  state.started = started;
  logger.info(
    health ? { ...started.readyFields, healthPort: health.port } : { ...started.readyFields },
    typeof options.readyMessage === 'string' ? options.readyMessage : options.readyMessage(started),
  );
  return {
    logger,
    healthPort: health?.port,
    started,
    async stop() {
      state.stopping = true;
      try {
        await started.close?.();
      } finally {
        await owned.closeAll();
        await health?.close();
      }
      if (options.stoppedMessage) logger.info(options.stoppedMessage);
    },
  };
}
