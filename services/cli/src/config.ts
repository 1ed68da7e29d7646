import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import {
  DEFAULT_MONGO_DB,
  LOCAL_MESH_FILE,
  mongoDatabaseName,
  parseEnv,
  parseHealthTargets,
  readLocalMesh,
  type HealthTarget,
  type LocalMesh,
} from '@berth/config';

/** Where the webhook inbox is when `MONGO_URL` / `MONGO_DB` are unset and no `npm start` is running (the services' defaults). */
export const DEFAULT_MONGO_URL = 'mongodb://127.0.0.1:27017/';
export { DEFAULT_MONGO_DB };

/** The CLI's settings. */
export interface CliConfig {
  /** NATS server(s), comma-separated. */
  readonly natsUrl: string;
  /** The MongoDB holding the webhook inbox (`berth webhooks …`); {@link DEFAULT_MONGO_URL} when unset. */
  readonly mongoUrl?: string;
  /** Its database; {@link DEFAULT_MONGO_DB} when unset. */
  readonly mongoDb?: string;
  /** Every service's health endpoint, for `berth status`. */
  readonly health?: HealthTarget[];
  /** Where the settings came from, for `berth status` and error messages. */
  readonly source?: string;
}

const cliEnvSchema = z.object({
  NATS_URL: z.string().min(1).optional(),
  MONGO_URL: z.string().min(1).optional(),
  MONGO_DB: z.string().min(1).optional(),
  /** `name=url,…`: the services' health endpoints (compose, Kubernetes); `npm start` writes its own to its file. */
  BERTH_HEALTH_URLS: z.string().optional(),
  /** The file a running `npm start` wrote; by default `.data/berth-local.json` in the working folder or the repository. */
  BERTH_LOCAL_FILE: z.string().min(1).optional(),
});

/** The repository this CLI runs from (services/cli/src → root), where `npm start` writes its file. */
const repositoryRoot = resolve(__dirname, '..', '..', '..');

/** The running `npm start`'s file: the one named, else the working folder's, else the repository's; only if its process is alive. */
export function findLocalMesh(named: string | undefined, cwd: string = process.cwd()): LocalMesh | undefined {
  const candidates = named ? [named] : [join(cwd, LOCAL_MESH_FILE), join(repositoryRoot, LOCAL_MESH_FILE)];
  for (const path of candidates) {
    if (!existsSync(path)) continue;
    const mesh = readLocalMesh(path);
    if (mesh && isAlive(mesh.pid)) return mesh;
  }
  return undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Reads the CLI's environment (the process's own unless a map is given). A variable that is set wins; what is
 * unset comes from the file of a running `npm start` (so the CLI beside it needs no variables), else the defaults.
 */
export function loadCliConfig(
  env: Record<string, string | undefined> = process.env,
  local: LocalMesh | undefined = findLocalMesh(env.BERTH_LOCAL_FILE),
): CliConfig {
  const parsed = parseEnv(cliEnvSchema, env);
  const fromFile = local ? `npm start (pid ${local.pid})` : undefined;
  const mongoUrl = parsed.MONGO_URL ?? local?.mongoUrl ?? DEFAULT_MONGO_URL;
  const mongoDb =
    parsed.MONGO_DB ?? (parsed.MONGO_URL || !local ? mongoDatabaseName({ MONGO_URL: mongoUrl }) : local.mongoDb);
  const health =
    parsed.BERTH_HEALTH_URLS !== undefined ? parseHealthTargets(parsed.BERTH_HEALTH_URLS) : (local?.health ?? []);
  const sources = [
    parsed.NATS_URL || parsed.MONGO_URL ? 'environment' : undefined,
    fromFile && (!parsed.NATS_URL || !parsed.MONGO_URL) ? fromFile : undefined,
  ].filter(Boolean);
  return {
    natsUrl: parsed.NATS_URL ?? local?.natsUrl ?? 'nats://127.0.0.1:4222',
    mongoUrl,
    mongoDb,
    health,
    source: sources.length > 0 ? sources.join(' + ') : 'defaults',
  };
}
