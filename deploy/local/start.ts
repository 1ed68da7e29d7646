/**
 * `npm start`: the local mesh without Docker (deploy/local/local-mesh.ts). A terminal's Ctrl-C signals every
 * process of the foreground process group at once, so the mesh runs in a process group of its own
 * (local-mesh-main.ts, detached) and this process forwards SIGINT and SIGTERM to it: the services drain and stop
 * first, then the servers. A second Ctrl-C kills what still runs. Exits with the mesh's exit code.
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');
const mesh = spawn(
  process.execPath,
  ['-r', './deploy/runtime/ts-hook.js', join(root, 'deploy/local/local-mesh-main.ts')],
  {
    cwd: root,
    env: process.env,
    detached: true,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  },
);
const forward = (signal: NodeJS.Signals): void => {
  if (mesh.exitCode === null && mesh.signalCode === null) mesh.kill(signal);
};
process.on('SIGINT', () => forward('SIGINT'));
process.on('SIGTERM', () => forward('SIGTERM'));
process.on('SIGHUP', () => forward('SIGTERM'));
mesh.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal ? 1 : 0);
  if (mesh.connected) mesh.disconnect();
});
