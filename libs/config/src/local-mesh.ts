import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';

/** Where `npm start` writes {@link LocalMesh}, relative to the repository root. */
export const LOCAL_MESH_FILE = join('.data', 'berth-local.json');

/** One service's health endpoint (`/healthz`, `/readyz` under `url`). */
export const healthTargetSchema = z.object({ name: z.string().min(1), url: z.string().url() });
export type HealthTarget = z.infer<typeof healthTargetSchema>;

/**
 * What a running `npm start` chose, written to {@link LOCAL_MESH_FILE} (mode 0600: it holds the dispatcher's
 * management token) so that the CLI beside it needs no variables.
 */
export const localMeshSchema = z.object({
  natsUrl: z.string().min(1),
  mongoUrl: z.string().min(1),
  mongoDb: z.string().min(1),
  gatewayUrl: z.string().url(),
  dispatcherUrl: z.string().url().optional(),
  dispatcherApiToken: z.string().min(1).optional(),
  health: z.array(healthTargetSchema),
  /**
   * The nodes of a JetStream cluster started here (`BERTH_NATS_CLUSTER=3`): name, client URL (without
   * credentials) and monitoring URL. Absent for a single server.
   */
  natsNodes: z
    .array(z.object({ name: z.string().min(1), url: z.string().min(1), monitoringUrl: z.string().url().optional() }))
    .optional(),
  /** Every gateway replica's URL (`BERTH_SCALE=gateway=2`); `gatewayUrl` is the first. */
  gatewayUrls: z.array(z.string().url()).optional(),
  pid: z.number().int(),
  startedAt: z.string(),
});
export type LocalMesh = z.infer<typeof localMeshSchema>;

/** Writes the file atomically (temporary file, then rename), readable by its owner only. */
export async function writeLocalMesh(path: string, mesh: LocalMesh): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(localMeshSchema.parse(mesh), null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}

/** Reads the file; undefined when there is none. A file that is not a valid {@link LocalMesh} is an error. */
export function readLocalMesh(path: string): LocalMesh | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = localMeshSchema.safeParse(JSON.parse(text));
  if (!parsed.success)
    throw new Error(
      `${path} is not a Berth local mesh file: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
    );
  return parsed.data;
}

/**
 * `name=url,name=url` (how compose and Kubernetes tell the CLI where every service's health endpoint is, in
 * `BERTH_HEALTH_URLS`) as health targets.
 */
export function parseHealthTargets(value: string): HealthTarget[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0)
    .map((item) => {
      const at = item.indexOf('=');
      if (at <= 0) throw new Error(`"${item}" is not name=url`);
      return healthTargetSchema.parse({ name: item.slice(0, at).trim(), url: item.slice(at + 1).trim() });
    });
}
