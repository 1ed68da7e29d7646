/**
 * The mesh process of `npm start` (started by start.ts in a process group of its own, so a terminal's Ctrl-C does
 * not reach the servers and services at once): runs the local mesh until start.ts asks it to stop (a forwarded
 * SIGINT or SIGTERM, or start.ts going away), then stops the services first (they drain), then the servers.
 * A second signal kills what still runs.
 */
import { startLocalMesh, type LocalMeshHandle } from './local-mesh';

async function main(): Promise<void> {
  let mesh: LocalMeshHandle | undefined;
  let stopping = false;
  let startFailed = false;
  const shutdown = async (why: string): Promise<void> => {
    if (stopping) {
      process.stdout.write('[berth] stopping now: killing what still runs\n');
      mesh?.services.kill();
      return;
    }
    stopping = true;
    process.stdout.write(`[berth] ${why}: stopping the services (they drain first), then the servers…\n`);
    await mesh?.stop();
    process.stdout.write('[berth] stopped\n');
    process.exit(startFailed ? 1 : 0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  // start.ts holds an IPC channel open; when it goes away (killed, terminal closed) the mesh stops too.
  process.on('disconnect', () => void shutdown('start.ts went away'));
  try {
    mesh = await startLocalMesh({
      env: process.env,
      freePorts: ['1', 'true', 'yes'].includes(process.env.BERTH_FREE_PORTS ?? ''),
    });
  } catch (error) {
    startFailed = true;
    process.stderr.write(
      `[berth] could not start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
    process.disconnect?.();
    return;
  }
  if (stopping) await mesh.stop();
}

void main();
