import { join } from 'node:path';
import { spawnManaged, type ManagedProcess } from '@berth/local-infra';

/** Environment of one fixture worker (see test/jobs/fixtures/worker-config.ts). */
export interface TestWorkerEnv {
  NATS_URL: string;
  MONGO_URL: string;
  MONGO_DB: string;
  WORKER_NAME: string;
  WORKER_QUEUES: string;
  WORKER_CONCURRENCY?: string;
  WORKER_ACK_WAIT_MS?: string;
  JOB_DURATION_MS?: string;
  RECORD_STARTS?: string;
  WORKER_SHUTDOWN_GRACE_MS?: string;
}

/** Starts test/jobs/fixtures/worker.ts in a child Node process and resolves once it logs `Queue worker ready`. */
export function startTestWorker(env: TestWorkerEnv): Promise<ManagedProcess> {
  return startFixtureWorker('worker.ts', env);
}

/** Starts a worker fixture of test/jobs/fixtures in a child Node process and resolves once it logs `Queue worker ready`. */
export async function startFixtureWorker(fixture: string, env: object): Promise<ManagedProcess> {
  const worker = spawnManaged({
    command: process.execPath,
    args: [
      '-r',
      join(__dirname, '..', '..', '..', 'deploy', 'runtime', 'ts-hook.js'),
      join(__dirname, '..', 'fixtures', fixture),
    ],
    env: { ...process.env, ...env } as NodeJS.ProcessEnv,
  });
  try {
    await worker.waitForLine(/Queue worker ready/, 30000);
  } catch (error) {
    worker.child.kill('SIGKILL');
    throw error;
  }
  return worker;
}
