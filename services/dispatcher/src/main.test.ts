import { join } from 'node:path';
import {
  defaultToolsBinDir,
  spawnManaged,
  startFerretDb,
  startNatsServer,
  type FerretDbHandle,
  type ManagedProcess,
  type NatsServerHandle,
} from '@berth/local-infra';

const binDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);
const repoRoot = join(__dirname, '..', '..', '..');
let nats: NatsServerHandle;
let ferret: FerretDbHandle;
let service: ManagedProcess | undefined;
const TOKEN = 'dispatcher-main-test-token-0123456789abcdef';
const serviceArgs = [
  '-r',
  join(__dirname, '..', '..', '..', 'deploy', 'runtime', 'ts-hook.js'),
  join(__dirname, 'main.ts'),
];

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
      args: serviceArgs,
      cwd: repoRoot,
      env: {
        ...process.env,
        NATS_URL: nats.url,
        MONGO_URL: ferret.url,
        MONGO_DB: `dispatcher_main_${process.pid}`,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_FORMAT: 'json',
        LOG_LEVEL: 'info',
        DISPATCHER_API_TOKEN: TOKEN,
      },
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
      args: serviceArgs,
      cwd: repoRoot,
      env: {
        ...process.env,
        OUTBOUND_ALLOW_PRIVATE_NETWORKS: '',
        OUTBOUND_RETRY_SCHEDULE_MS: 'later',
        NATS_URL: nats.url,
        DISPATCHER_API_TOKEN: TOKEN,
      },
    });
    await misconfigured.waitForLine(/OUTBOUND_RETRY_SCHEDULE_MS/, 45_000);
    expect((await misconfigured.exited).code).toBe(1);
  });

  it('refuses to start without DISPATCHER_API_TOKEN, before connecting anywhere', async () => {
    const { DISPATCHER_API_TOKEN: _unset, DISPATCHER_INSECURE_NO_AUTH: _unsetToo, ...inherited } = process.env;
    const open = spawnManaged({
      command: process.execPath,
      args: serviceArgs,
      cwd: repoRoot,
      env: { ...inherited, NATS_URL: nats.url, MONGO_URL: ferret.url, PORT: '0', HOST: '127.0.0.1' },
    });
    await open.waitForLine(/DISPATCHER_API_TOKEN: required/, 45_000);
    expect((await open.exited).code).toBe(1);
  });

  it('with DISPATCHER_INSECURE_NO_AUTH=true serves the API without a token and says so in a warning', async () => {
    const { DISPATCHER_API_TOKEN: _unset, ...inherited } = process.env;
    const insecure = spawnManaged({
      command: process.execPath,
      args: serviceArgs,
      cwd: repoRoot,
      env: {
        ...inherited,
        NATS_URL: nats.url,
        MONGO_URL: ferret.url,
        MONGO_DB: `dispatcher_insecure_${process.pid}`,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_FORMAT: 'json',
        LOG_LEVEL: 'info',
        DISPATCHER_INSECURE_NO_AUTH: 'true',
      },
    });
    try {
      await insecure.waitForLine(
        /"level":40.*DISPATCHER_INSECURE_NO_AUTH=true: the management API accepts every request WITHOUT a token/,
        45_000,
      );
      const [, port] = await insecure.waitForLine(
        /"port":(\d+).*"authentication":"none".*"msg":"Dispatcher ready"/,
        45_000,
      );
      expect((await fetch(`http://127.0.0.1:${port}/v1/endpoints`)).status).toBe(200);
    } finally {
      await insecure.stop(2000);
    }
  });
});
