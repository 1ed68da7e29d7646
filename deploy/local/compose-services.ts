import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { localSecrets } from './local-secrets';

/** A Berth service as docker-compose.yml declares it: what `npm start` runs natively. */
export interface NativeService {
  name: string;
  command: string[];
  environment: Record<string, string>;
  replicas: number;
}

interface ComposeService {
  command?: string[];
  environment?: Record<string, string | number | null>;
  labels?: Record<string, string>;
  deploy?: { replicas?: number };
}

/** Where `npm start` keeps the local values of compose's required variables. */
export const DEFAULT_LOCAL_SECRETS_FILE = join(resolve(__dirname, '..', '..'), '.data', 'local-secrets.json');

/** A `${VAR:?message}` with no value and no local value to stand in for it. */
export class MissingVariableError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`${variable} is required: ${detail}`);
    this.name = 'MissingVariableError';
  }
}

/**
 * Expands `${VAR:-default}`, `${VAR-default}`, `${VAR:?message}`, `${VAR?message}` and `${VAR}` the way Compose
 * does, from the given environment. A required variable that is unset (or empty, with `:?`) takes its value from
 * `localValues`, what `npm start` supplies; without one it is an error naming the variable, as `docker compose` stops.
 * @throws MissingVariableError
 */
export function interpolate(
  value: string,
  env: Record<string, string | undefined>,
  localValues: Record<string, string> = {},
): string {
  return value.replace(
    /\$\{([A-Za-z0-9_]+)(?:(:?)([-?])([^}]*))?\}/g,
    (_match, name: string, colon?: string, kind?: string, argument?: string) => {
      const found = env[name];
      const present = colon === ':' ? found !== undefined && found !== '' : found !== undefined;
      if (kind === '?') {
        if (present) return found!;
        if (localValues[name] !== undefined) return localValues[name];
        throw new MissingVariableError(name, argument || 'set it in the environment');
      }
      if (kind === undefined) return found ?? '';
      return present ? found! : (argument ?? '');
    },
  );
}

/** Points URLs at compose service names (`http://dispatcher:3100`) to loopback, where `npm start` runs them all. */
export function toLoopback(value: string, hostNames: readonly string[]): string {
  return hostNames.reduce((text, host) => text.replaceAll(`://${host}:`, '://127.0.0.1:'), value);
}

/**
 * Reads the services labelled `berth.native: "true"` from a compose file, with their command and environment.
 * Compose's required secrets come from `env` when set there, else from `localValues` (by default the generated
 * local secrets of `npm start`, see {@link localSecrets}).
 */
export function readNativeServices(
  composeFile: string,
  env: Record<string, string | undefined>,
  localValues: Record<string, string> = localSecrets(DEFAULT_LOCAL_SECRETS_FILE),
): NativeService[] {
  const compose = parse(readFileSync(composeFile, 'utf8'), { merge: true }) as {
    services: Record<string, ComposeService>;
  };
  return Object.entries(compose.services)
    .filter(([, service]) => service.labels?.['berth.native'] === 'true')
    .map(([name, service]) => ({
      name,
      command: service.command ?? [],
      replicas: service.deploy?.replicas ?? 1,
      environment: Object.fromEntries(
        Object.entries(service.environment ?? {}).map(([key, value]) => [
          key,
          interpolate(String(value ?? ''), env, localValues),
        ]),
      ),
    }));
}
