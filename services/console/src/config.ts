import { z } from 'zod';
import {
  commonConfig,
  commonEnvSchema,
  mongoConfig,
  parseEnv,
  type CommonConfig,
  type MongoConfig,
} from '@berth/config';
import { CONSOLE_ROLES } from './auth/roles';

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'sha256 must be the 64 lowercase hex digits of SHA-256(token)');

/** One entry of `CONSOLE_TOKENS`: who holds a token (by its SHA-256, never the token itself) and what it may do. */
const tokenEntry = z
  .object({
    name: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9_.@-]+$/, 'names are letters, digits and _ . @ -'),
    role: z.enum(CONSOLE_ROLES),
    sha256: sha256Hex,
  })
  .strict();

const jsonOf = <T extends z.ZodType>(schema: T, what: string) =>
  z
    .string({ error: `required: ${what}` })
    .min(1, `required: ${what}`)
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'not JSON' });
        return z.NEVER;
      }
    })
    .pipe(schema);

const optionalUrl = z.preprocess((value) => (value === '' ? undefined : value), z.url().optional());

/** The console's environment. */
export const consoleEnvSchema = commonEnvSchema.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(3200),
  HOST: z.string().min(1).default('0.0.0.0'),
  /**
   * Who may sign in: a JSON list of `{ name, role: viewer|operator|issuer, sha256 }`, `sha256` being the hex
   * SHA-256 of the bearer token (`printf %s "$TOKEN" | sha256sum`). Required: there is no default and no open mode.
   */
  CONSOLE_TOKENS: jsonOf(
    z.array(tokenEntry).min(1, 'list at least one token'),
    'a JSON list of { name, role, sha256 }',
  ).refine(
    (entries) => new Set(entries.map((entry) => entry.sha256)).size === entries.length,
    'two entries share a token',
  ),
  /** Signs the portal's workspace tokens and the console's confirmation tokens (HMAC-SHA256). At least 32 characters. */
  CONSOLE_SIGNING_KEY: z.string({ error: 'required: at least 32 random characters' }).min(32, 'at least 32 characters'),
  /** Lifetime of a portal token when the issuer asks for none; at most 3600. */
  CONSOLE_PORTAL_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(3600).default(900),
  /** The dispatcher's management API, where the event-type catalog is read (`/v1/event-types`). */
  DISPATCHER_URL: z.url().default('http://127.0.0.1:3100'),
  DISPATCHER_API_TOKEN: z.preprocess((value) => (value === '' ? undefined : value), z.string().min(16).optional()),
  /** Jaeger's UI, to link trace ids (`<url>/trace/<id>`); unset: trace ids are shown without a link. */
  JAEGER_UI_URL: optionalUrl,
  /** Services whose readiness the Overview shows: a JSON object `{ "gateway": "http://gateway:3000/readyz", … }`. */
  CONSOLE_HEALTH_URLS: z.preprocess(
    (value) => (value === undefined || value === '' ? '{}' : value),
    jsonOf(z.record(z.string().min(1), z.url()), 'a JSON object of name to URL'),
  ),
  /** How often queue depths are sampled for the Overview's job charts. */
  CONSOLE_SAMPLE_INTERVAL_MS: z.coerce.number().int().min(1000).default(30_000),
  /**
   * Who may embed the portal in a frame (CSP `frame-ancestors`), e.g. `https://app.example.com`; default `'self'`.
   * The console's own pages may never be framed.
   */
  CONSOLE_PORTAL_FRAME_ANCESTORS: z
    .string()
    .regex(/^[^;,\r\n]+$/, 'space-separated CSP sources')
    .default("'self'"),
  /** Where the built front end is; default `services/console/web/dist`. */
  CONSOLE_WEB_DIR: z.preprocess((value) => (value === '' ? undefined : value), z.string().optional()),
});

/** One entry of `CONSOLE_TOKENS`. */
export type ConsoleTokenEntry = z.infer<typeof tokenEntry>;

/** The console's settings, parsed and validated from the environment by {@link loadConfig}. */
export interface ConsoleConfig extends CommonConfig, MongoConfig {
  /** Port and host the console serves on (`PORT`, `HOST`). */
  readonly port: number;
  readonly host: string;
  /** Who may sign in (`CONSOLE_TOKENS`). */
  readonly tokens: readonly ConsoleTokenEntry[];
  /** Signs portal and confirmation tokens (`CONSOLE_SIGNING_KEY`). */
  readonly signingKey: string;
  /** A portal token's lifetime when the issuer asks for none (`CONSOLE_PORTAL_TOKEN_TTL_SECONDS`). */
  readonly portalTokenTtlSeconds: number;
  /** The dispatcher's management API and its token (`DISPATCHER_URL`, `DISPATCHER_API_TOKEN`). */
  readonly dispatcherUrl: string;
  readonly dispatcherApiToken?: string;
  /** Jaeger, to link and draw traces (`JAEGER_UI_URL`); unset: trace ids are shown without a link. */
  readonly jaegerUiUrl?: string;
  /** Services whose readiness the Overview shows (`CONSOLE_HEALTH_URLS`). */
  readonly healthUrls: Readonly<Record<string, string>>;
  /** How often queue depths are sampled (`CONSOLE_SAMPLE_INTERVAL_MS`). */
  readonly sampleIntervalMs: number;
  /** Who may frame the portal (`CONSOLE_PORTAL_FRAME_ANCESTORS`). */
  readonly portalFrameAncestors: string;
  /** Where the built front end is (`CONSOLE_WEB_DIR`); unset: `services/console/web/dist`. */
  readonly webDir?: string;
}

/**
 * Reads and validates the console's environment; the only place in the service that reads `process.env`.
 * @throws ConfigError naming every invalid variable (a missing `CONSOLE_TOKENS` or `CONSOLE_SIGNING_KEY` among them).
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): ConsoleConfig {
  const parsed = parseEnv(consoleEnvSchema, env);
  return {
    ...commonConfig(parsed, 'console'),
    ...mongoConfig(parsed),
    port: parsed.PORT,
    host: parsed.HOST,
    tokens: parsed.CONSOLE_TOKENS,
    signingKey: parsed.CONSOLE_SIGNING_KEY,
    portalTokenTtlSeconds: parsed.CONSOLE_PORTAL_TOKEN_TTL_SECONDS,
    dispatcherUrl: parsed.DISPATCHER_URL,
    dispatcherApiToken: parsed.DISPATCHER_API_TOKEN,
    jaegerUiUrl: parsed.JAEGER_UI_URL,
    healthUrls: parsed.CONSOLE_HEALTH_URLS,
    sampleIntervalMs: parsed.CONSOLE_SAMPLE_INTERVAL_MS,
    portalFrameAncestors: parsed.CONSOLE_PORTAL_FRAME_ANCESTORS,
    webDir: parsed.CONSOLE_WEB_DIR,
  };
}
