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

/** Expands `${VAR:-default}` and `${VAR}` the way Compose does, from the given environment. */
export function interpolate(value: string, env: Record<string, string | undefined>): string {
  return value.replace(/\$\{([A-Za-z0-9_]+)(?::-([^}]*))?\}/g, (_match, name: string, fallback?: string) => {
    const found = env[name];
    return found !== undefined && found !== '' ? found : (fallback ?? '');
  });
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
