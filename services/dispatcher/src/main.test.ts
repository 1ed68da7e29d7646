import { join } from 'node:path';
import { defaultToolsBinDir, spawnManaged, startFerretDb, startNatsServer, type FerretDbHandle, type ManagedProcess, type NatsServerHandle } from '@berth/local-infra';

const binDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);
const repoRoot = join(__dirname, '..', '..', '..');
let nats: NatsServerHandle;
let ferret: FerretDbHandle;
let service: ManagedProcess | undefined;

beforeAll(async () => {
  [nats, ferret] = await Promise.all([startNatsServer({ binDir }), startFerretDb({ binDir })]);
}, 60_000);
afterAll(async () => {
  await service?.stop(2000);
  await Promise.all([ferret?.stop(), nats?.stop()]);
});

describe('dispatcher process', () => {
  it('starts from its environment, serves /readyz and /metrics, and exits 0 on SIGTERM', async () => {
    service = spawnManaged({
      command: process.execPath,
      args: ['-r', join(__dirname, '..', '..', '..', 'deploy', 'runtime', 'ts-hook.js'), join(__dirname, 'main.ts')],
      cwd: repoRoot,
      env: { ...process.env, NATS_URL: nats.url, MONGO_URL: ferret.url, MONGO_DB: `dispatcher_main_${process.pid}`, PORT: '0', HOST: '127.0.0.1', LOG_FORMAT: 'json', LOG_LEVEL: 'info' },
    });
    const [, port] = await service.waitForLine(/"port":(\d+).*"msg":"Dispatcher ready"/, 45_000);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toContain('webhook_outbound_total');
    service.child.kill('SIGTERM');
    expect(await service.exited).toEqual({ code: 0, signal: null });
    await service.waitForLine(/"msg":"Dispatcher stopped"/, 1000);
  });

  it('refuses to start with an invalid variable, naming it', async () => {
    const misconfigured = spawnManaged({
      command: process.execPath,
      args: ['-r', join(__dirname, '..', '..', '..', 'deploy', 'runtime', 'ts-hook.js'), join(__dirname, 'main.ts')],
      cwd: repoRoot,
      env: { ...process.env, OUTBOUND_ALLOW_PRIVATE_NETWORKS: '', OUTBOUND_RETRY_SCHEDULE_MS: 'later', NATS_URL: nats.url },
    });
    await misconfigured.waitForLine(/OUTBOUND_RETRY_SCHEDULE_MS/, 45_000);
    expect((await misconfigured.exited).code).toBe(1);
  });
});
