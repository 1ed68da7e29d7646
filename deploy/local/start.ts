/**
 * `npm start`: the local mesh without Docker (deploy/local/local-mesh.ts). A terminal's Ctrl-C signals every
 * process of the foreground process group at once, so the mesh runs in a process group of its own
 * (local-mesh-main.ts, detached) and this process forwards SIGINT and SIGTERM to it: the services drain and stop
 * first, then the servers. A second Ctrl-C kills what still runs. Exits with the mesh's exit code.
 *
 * `BERTH_TRACES=1 npm start` also runs Jaeger (built by deploy/local/install-jaeger.sh; all-in-one, in memory,
 * OTLP/HTTP on :4318, query API on :16686), in a process group of its own so that it outlives the services'
 * last exports and is stopped after the mesh; the services export to it and the console's event pages draw each
 * event's trace from it as a waterfall.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');
const env = { ...process.env };
let jaeger: ReturnType<typeof spawn> | undefined;
if (env.BERTH_TRACES === '1') {
  const binDir = execFileSync('bash', [join(root, 'deploy/local/install-jaeger.sh')], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
    .toString()
    .trim()
    .split('\n')
    .pop()!;
  const dataDir = resolve(root, env.BERTH_DATA_DIR ?? '.data');
  mkdirSync(dataDir, { recursive: true });
  const log = openSync(join(dataDir, 'jaeger.log'), 'a');
  jaeger = spawn(join(binDir, 'jaeger'), [], { cwd: dataDir, detached: true, stdio: ['ignore', log, log] });
  env.OTEL_EXPORTER_OTLP_ENDPOINT ??= 'http://127.0.0.1:4318';
  env.JAEGER_UI_URL ??= 'http://127.0.0.1:16686';
  process.stdout.write(`[berth] traces: Jaeger at ${env.JAEGER_UI_URL} (log ${join(dataDir, 'jaeger.log')})\n`);
}
const mesh = spawn(
  process.execPath,
  ['-r', './deploy/runtime/ts-hook.js', join(root, 'deploy/local/local-mesh-main.ts')],
  {
    cwd: root,
    env,
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
  jaeger?.kill('SIGTERM');
  if (mesh.connected) mesh.disconnect();
});
