import { z } from 'zod';
import {
  booleanFlag,
  commaList,
  commonEnvSchema,
  lifecycleEnvFields,
  commonConfig,
  lifecycleConfig,
  mongoConfig,
  parseEnv,
  portNumber,
  positiveInt,
  type CommonConfig,
  type LifecycleConfig,
  type MongoConfig,
} from '@berth/config';

/** A comma-separated list of delays in ms, e.g. `0,100,200`; empty or unset means the Svix schedule. */
const retrySchedule = commaList.pipe(z.array(z.string().regex(/^\d+$/, 'a list of delays in ms').transform(Number)));

/** The shortest management API token accepted: 32 characters (e.g. `openssl rand -hex 32` gives 64). */
export const MIN_API_TOKEN_LENGTH = 32;

const emptyIsUnset = (value: unknown): unknown => (value === '' ? undefined : value);

/** The dispatcher's environment. */
export const dispatcherEnvSchema = commonEnvSchema
  .extend({
    /** Port of the endpoint management API and of `/healthz`, `/readyz`, `/metrics`. */
    PORT: portNumber(3100),
    HOST: z.string().min(1).default('0.0.0.0'),
    /** Bearer token every management API request needs; required unless {@link DISPATCHER_INSECURE_NO_AUTH} is true. */
    DISPATCHER_API_TOKEN: z.preprocess(
      emptyIsUnset,
      z
        .string()
        .min(MIN_API_TOKEN_LENGTH)
        .regex(/^[A-Za-z0-9\-._~+/]+=*$/, 'a bearer token (letters, digits, -._~+/)')
        .optional(),
    ),
    /** `true`: serve the management API without any token (a local experiment only; logged as a warning at start). */
    DISPATCHER_INSECURE_NO_AUTH: booleanFlag(false),
    /**
     * CIDRs deliveries may reach although they are not public (loopback, RFC 1918, ULA…). Empty by default: the SSRF
     * policy is strict. Tests allow `127.0.0.0/8` to reach loopback receivers (so may a local `npm start`, from the shell).
     */
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: commaList,
    /** Ports (`443`) and ranges (`8000-8999`) deliveries may connect to; empty or unset: 80 and 443. */
    OUTBOUND_ALLOWED_PORTS: commaList,
    /** Delays before each attempt of a delivery; unset: the Svix schedule (0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h). */
    OUTBOUND_RETRY_SCHEDULE_MS: retrySchedule,
    /** Jitter of the retry delays, 0 to 1. */
    OUTBOUND_RETRY_JITTER: z.coerce.number().min(0).max(1).default(0.2),
    /** Deadline of one attempt (resolution, connection, response). */
    OUTBOUND_TIMEOUT_MS: positiveInt(15_000),
    /** Days an endpoint may fail every attempt before it is disabled, with one alert. */
    OUTBOUND_DISABLE_AFTER_FAILING_DAYS: z.coerce.number().positive().default(5),
    /** Days the delivery log (attempts, response bodies) is kept. */
    OUTBOUND_DELIVERY_RETENTION_DAYS: z.coerce.number().positive().default(30),
    /** How often the retention pass runs. */
    OUTBOUND_RETENTION_INTERVAL_MS: positiveInt(60 * 60 * 1000),
    /** Deliveries in flight at once per unordered endpoint, per replica. */
    DISPATCHER_ENDPOINT_CONCURRENCY: positiveInt(16),
    /** Events fanned out at once, per replica. */
    DISPATCHER_FAN_OUT_CONCURRENCY: positiveInt(32),
    /** How often endpoints are reloaded besides change announcements. */
    DISPATCHER_ENDPOINT_RELOAD_MS: positiveInt(5000),
    /** `SHUTDOWN_GRACE_MS` (20 s: on SIGTERM, how long running attempts may take to finish) and `STREAM_REPLICAS`. */
    ...lifecycleEnvFields(20_000),
  })
  .superRefine((env, context) => {
    if (env.DISPATCHER_API_TOKEN === undefined && !env.DISPATCHER_INSECURE_NO_AUTH) {
      context.addIssue({
        code: 'custom',
        path: ['DISPATCHER_API_TOKEN'],
        message: `required (at least ${MIN_API_TOKEN_LENGTH} characters): the management API refuses to run open; set DISPATCHER_INSECURE_NO_AUTH=true to run it without a token on purpose`,
      });
    }
    if (env.DISPATCHER_API_TOKEN !== undefined && env.DISPATCHER_INSECURE_NO_AUTH) {
      context.addIssue({
        code: 'custom',
        path: ['DISPATCHER_INSECURE_NO_AUTH'],
        message: 'set either DISPATCHER_API_TOKEN or DISPATCHER_INSECURE_NO_AUTH=true, not both',
      });
    }
  });

/** The dispatcher's settings, parsed and validated from the environment by {@link loadConfig}. */
export interface DispatcherConfig extends CommonConfig, MongoConfig, LifecycleConfig {
  /** Port and host of the endpoint management API and of `/healthz`, `/readyz`, `/metrics` (`PORT`, `HOST`). */
  readonly port: number;
  readonly host: string;
  /** Bearer token every management API request needs (`DISPATCHER_API_TOKEN`); unset only with `insecureNoAuth`. */
  readonly apiToken?: string;
  /** Serve the management API without any token (`DISPATCHER_INSECURE_NO_AUTH`). */
  readonly insecureNoAuth: boolean;
  /** CIDRs deliveries may reach although they are not public (`OUTBOUND_ALLOW_PRIVATE_NETWORKS`). */
  readonly allowPrivateNetworks: readonly string[];
  /** Ports and ranges deliveries may connect to (`OUTBOUND_ALLOWED_PORTS`); empty: 80 and 443. */
  readonly allowedPorts: readonly string[];
  /** Delays before each attempt (`OUTBOUND_RETRY_SCHEDULE_MS`); empty: the Svix schedule. */
  readonly retryScheduleMs: readonly number[];
  /** `OUTBOUND_RETRY_JITTER`, 0 to 1. */
  readonly retryJitter: number;
  /** Deadline of one attempt (`OUTBOUND_TIMEOUT_MS`). */
  readonly timeoutMs: number;
  /** Days an endpoint may fail every attempt before it is disabled (`OUTBOUND_DISABLE_AFTER_FAILING_DAYS`). */
  readonly disableAfterFailingDays: number;
  /** Days the delivery log is kept (`OUTBOUND_DELIVERY_RETENTION_DAYS`). */
  readonly deliveryRetentionDays: number;
  /** How often the retention pass runs (`OUTBOUND_RETENTION_INTERVAL_MS`). */
  readonly retentionIntervalMs: number;
  /** Deliveries in flight at once per unordered endpoint, per replica (`DISPATCHER_ENDPOINT_CONCURRENCY`). */
  readonly endpointConcurrency: number;
  /** Events fanned out at once, per replica (`DISPATCHER_FAN_OUT_CONCURRENCY`). */
  readonly fanOutConcurrency: number;
  /** How often endpoints are reloaded besides change announcements (`DISPATCHER_ENDPOINT_RELOAD_MS`). */
  readonly endpointReloadMs: number;
}

/**
 * Reads and validates the dispatcher's environment; the only place in the service that reads `process.env` (when
 * called without an argument, as `main.ts` does). Tests pass a map.
 * @throws ConfigError naming every invalid variable.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): DispatcherConfig {
  const parsed = parseEnv(dispatcherEnvSchema, env);
  return {
    ...commonConfig(parsed, 'dispatcher'),
    ...mongoConfig(parsed),
    ...lifecycleConfig(parsed),
    port: parsed.PORT,
    host: parsed.HOST,
    apiToken: parsed.DISPATCHER_API_TOKEN,
    insecureNoAuth: parsed.DISPATCHER_INSECURE_NO_AUTH,
    allowPrivateNetworks: parsed.OUTBOUND_ALLOW_PRIVATE_NETWORKS,
    allowedPorts: parsed.OUTBOUND_ALLOWED_PORTS,
    retryScheduleMs: parsed.OUTBOUND_RETRY_SCHEDULE_MS,
    retryJitter: parsed.OUTBOUND_RETRY_JITTER,
    timeoutMs: parsed.OUTBOUND_TIMEOUT_MS,
    disableAfterFailingDays: parsed.OUTBOUND_DISABLE_AFTER_FAILING_DAYS,
    deliveryRetentionDays: parsed.OUTBOUND_DELIVERY_RETENTION_DAYS,
    retentionIntervalMs: parsed.OUTBOUND_RETENTION_INTERVAL_MS,
    endpointConcurrency: parsed.DISPATCHER_ENDPOINT_CONCURRENCY,
    fanOutConcurrency: parsed.DISPATCHER_FAN_OUT_CONCURRENCY,
    endpointReloadMs: parsed.DISPATCHER_ENDPOINT_RELOAD_MS,
  };
}
