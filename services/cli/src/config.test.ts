import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeLocalMesh, type LocalMesh } from '@berth/config';
import { findLocalMesh, loadCliConfig } from './config';

const mesh = (pid: number): LocalMesh => ({
  natsUrl: 'nats://127.0.0.1:4250',
  mongoUrl: 'mongodb://127.0.0.1:27250/',
  mongoDb: 'berth',
  gatewayUrl: 'http://127.0.0.1:3000',
  dispatcherUrl: 'http://127.0.0.1:3100',
  dispatcherApiToken: 'token',
  health: [{ name: 'billing-sync', url: 'http://127.0.0.1:9464' }],
  pid,
  startedAt: new Date(0).toISOString(),
});

describe('CLI configuration', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'berth-cli-config-'))));
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("takes what a running npm start chose when no variable is set; the file is the owner's only", async () => {
    const file = join(dir, 'berth-local.json');
    await writeLocalMesh(file, mesh(process.pid));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const config = loadCliConfig({ BERTH_LOCAL_FILE: file });
    expect(config).toMatchObject({
      natsUrl: 'nats://127.0.0.1:4250',
      mongoUrl: 'mongodb://127.0.0.1:27250/',
      mongoDb: 'berth',
      health: [{ name: 'billing-sync' }],
    });
    expect(config.source).toContain(`npm start (pid ${process.pid})`);
  });

  it('ignores the file of an npm start that is gone, and a variable that is set wins', async () => {
    const file = join(dir, 'berth-local.json');
    await writeLocalMesh(file, mesh(2 ** 22 + 12345));
    expect(findLocalMesh(file)).toBeUndefined();
    await writeLocalMesh(file, mesh(process.pid));
    const config = loadCliConfig({
      BERTH_LOCAL_FILE: file,
      NATS_URL: 'nats://elsewhere:4222',
      MONGO_URL: 'mongodb://db/myapp',
      BERTH_HEALTH_URLS: 'gateway=http://gateway:3000',
    });
    expect(config).toMatchObject({
      natsUrl: 'nats://elsewhere:4222',
      mongoUrl: 'mongodb://db/myapp',
      mongoDb: 'myapp',
      health: [{ name: 'gateway', url: 'http://gateway:3000' }],
    });
    expect(
      loadCliConfig({ BERTH_LOCAL_FILE: file, MONGO_URL: 'mongodb://db/myapp', MONGO_DB: 'override' }).mongoDb,
    ).toBe('override');
  });

  it('falls back to the defaults with neither', () => {
    expect(loadCliConfig({ BERTH_LOCAL_FILE: join(dir, 'none.json') })).toMatchObject({
      natsUrl: 'nats://127.0.0.1:4222',
      mongoUrl: 'mongodb://127.0.0.1:27017/',
      mongoDb: 'berth',
      health: [],
      source: 'defaults',
    });
  });
});
