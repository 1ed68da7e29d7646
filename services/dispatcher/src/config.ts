import { z } from 'zod';
import {
  booleanFlag,
  commaList,
  commonEnvSchema,
  lifecycleEnvFields,
  parseEnv,
  portNumber,
  positiveInt,
  withMongoDatabase,
  type WithMongoDatabase,
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

/** The dispatcher's validated configuration. */
export type DispatcherConfig = WithMongoDatabase<z.infer<typeof dispatcherEnvSchema>>;

/**
 * Reads and validates the dispatcher's environment; the only place in the service that reads `process.env` (when
 * called without an argument, as `main.ts` does). Tests pass a map.
 * @throws ConfigError naming every invalid variable.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): DispatcherConfig {
  return withMongoDatabase(parseEnv(dispatcherEnvSchema, env));
}
