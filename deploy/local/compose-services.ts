import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

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

/**
 * Expands `${VAR:-default}`, `${VAR}` and `${VAR:?message}` the way Compose does, from the given environment. A
 * required `${VAR:?…}` that is unset expands to nothing, so the variable stays unset and the service's own config
 * refuses to start, naming it (Compose refuses the whole project instead).
 */
export function interpolate(value: string, env: Record<string, string | undefined>): string {
  return value.replace(/\$\{([A-Za-z0-9_]+)(?:(:-|:\?)([^}]*))?\}/g, (_match, name: string, operator?: string, fallback?: string) => {
    const found = env[name];
    return found !== undefined && found !== '' ? found : operator === ':-' ? (fallback ?? '') : '';
  });
}

/** Points URLs at compose service names (`http://dispatcher:3100`) to loopback, where `npm start` runs them all. */
export function toLoopback(value: string, hostNames: readonly string[]): string {
  return hostNames.reduce((text, host) => text.replaceAll(`://${host}:`, '://127.0.0.1:'), value);
}

/** Reads the services labelled `berth.native: "true"` from a compose file, with their command and environment. */
export function readNativeServices(composeFile: string, env: Record<string, string | undefined>): NativeService[] {
  const compose = parse(readFileSync(composeFile, 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };
  return Object.entries(compose.services)
    .filter(([, service]) => service.labels?.['berth.native'] === 'true')
    .map(([name, service]) => ({
      name,
      command: service.command ?? [],
      replicas: service.deploy?.replicas ?? 1,
      environment: Object.fromEntries(
        Object.entries(service.environment ?? {}).map(([key, value]) => [key, interpolate(String(value ?? ''), env)]),
      ),
    }));
}
