/**
 * `npm start` as a user runs it, in a terminal: deploy/local/start.ts in a process group of its own (the terminal's
 * foreground group), free ports and a temporary data folder. A service killed is restarted and the reason printed;
 * `berth status` with no variables reads the file npm start wrote; a consumer that cannot pull makes its service not
 * ready; Ctrl-C (SIGINT to the whole group) stops the services first, each draining cleanly, then the servers.
 * nats-server runs Berth's NATS users (deploy/nats/auth.conf): the file gives the CLI the operator's URL, each
 * service connects as its own user, and nats-server refuses nothing any of them does.
 */
import { waitFor } from '@berth/local-infra/testing';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { readLocalMesh, type LocalMesh } from '@berth/config';
import { splitServerCredentials } from '@berth/messaging';
import { permissionViolations } from '../../deploy/local/nats-users';
import { repoRoot } from '../support/service-process';

jest.setTimeout(300_000);
const run = promisify(execFile);

let dataDir: string;
let start: ChildProcess;
let output = '';
let exited: Promise<number | null>;
let started: LocalMesh;

/** Runs `berth status --json` as a user would beside npm start: no NATS_URL, MONGO_URL or health URLs set. */
async function berthStatus(): Promise<{
  code: number;
  status: { healthy: boolean; services: { name: string; state: string }[]; consumers: unknown; inbox: unknown };
}> {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    BERTH_LOCAL_FILE: join(dataDir, 'berth-local.json'),
  };
  try {
    const { stdout } = await run(process.execPath, [join(repoRoot, 'services/cli/bin/berth.js'), 'status', '--json'], {
      env,
      cwd: dataDir,
      timeout: 30000,
    });
    return { code: 0, status: JSON.parse(stdout) };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, status: JSON.parse(failed.stdout) };
  }
}

/** The process listening on a loopback port (a service's health or HTTP port). */
async function pidListeningOn(url: string): Promise<number> {
  const { stdout } = await run('ss', ['-ltnpH', `sport = :${new URL(url).port}`]);
  const match = /pid=(\d+)/.exec(stdout);
  if (!match) throw new Error(`nothing listens on ${url}`);
  return Number(match[1]);
}

/** A connection with the credentials of a NATS URL (`nats://user:password@host:port`). */
function connectTo(url: string, options: { maxReconnectAttempts?: number; timeout?: number } = {}) {
  const { servers, user, pass } = splitServerCredentials(url);
  return connect({ servers, user, pass, ...options });
}

const mesh = (): LocalMesh => {
  const read = readLocalMesh(join(dataDir, 'berth-local.json'));
  if (!read) throw new Error('npm start wrote no berth-local.json');
  return read;
};

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'berth-npm-start-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    BERTH_TOOLS_DIR: process.env.BERTH_TOOLS_DIR,
    BERTH_DATA_DIR: dataDir,
    BERTH_FREE_PORTS: 'true',
    LOG_FORMAT: 'json',
    LOG_LEVEL: 'info',
    METRICS_READ_CACHE_MS: '0',
  };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  start = spawn(process.execPath, ['-r', './deploy/runtime/ts-hook.js', 'deploy/local/start.ts'], {
    cwd: repoRoot,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  start.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  start.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  exited = new Promise((resolve) => start.once('exit', (code) => resolve(code)));
  await waitFor(async () => existsSync(join(dataDir, 'berth-local.json')), {
    what: 'berth-local.json',
    timeoutMs: 120_000,
    intervalMs: 500,
    until: Boolean,
  });
  started = mesh();
});

afterAll(async () => {
  if (start.exitCode === null) {
    process.kill(-start.pid!, 'SIGKILL');
  }
  await rm(dataDir, { recursive: true, force: true });
});

describe('npm start', () => {
  it('writes what it chose to a file only its owner reads, with the dispatcher token of the generated local secrets', async () => {
    const file = join(dataDir, 'berth-local.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const chosen = mesh();
    expect(chosen.mongoDb).toBe('berth');
    const secrets = JSON.parse(await readFile(join(dataDir, 'local-secrets.json'), 'utf8')) as Record<string, string>;
    // The operator's NATS user (the CLI's, the runbook's), with its generated password; no anonymous access.
    expect(secrets.NATS_OPERATOR_PASSWORD).toMatch(/^[0-9a-f]{64}$/);
    expect(chosen.natsUrl).toMatch(/^nats:\/\/operator:[0-9a-f]{64}@127\.0\.0\.1:\d+$/);
    expect(chosen.natsUrl).toContain(`:${secrets.NATS_OPERATOR_PASSWORD}@`);
    const { servers } = splitServerCredentials(chosen.natsUrl);
    await expect(connect({ servers, maxReconnectAttempts: 0, timeout: 2000 })).rejects.toThrow();
    await expect(
      connect({ servers, user: 'gateway', pass: 'not-its-password', maxReconnectAttempts: 0, timeout: 2000 }),
    ).rejects.toThrow();
    expect(statSync(join(dataDir, 'local-secrets.json')).mode & 0o777).toBe(0o600);
    expect(chosen.dispatcherApiToken).toMatch(/^[0-9a-f]{64}$/);
    expect(chosen.dispatcherApiToken).toBe(secrets.DISPATCHER_API_TOKEN);
    expect(chosen.health.map((target) => target.name).sort()).toEqual([
      'app-worker',
      'billing-sync',
      'console',
      'dispatcher',
      'gateway',
      'identity-sync',
      'scheduler-1',
      'scheduler-2',
    ]);
    expect(JSON.parse(await readFile(file, 'utf8')).pid).toBeGreaterThan(0);
  });

  it('is healthy in `berth status` with no variables set', async () => {
    const { status, code } = await waitFor(berthStatus, {
      what: 'every service ready',
      timeoutMs: 180_000,
      intervalMs: 2000,
      until: (result) => result.code === 0,
    });
    expect(code).toBe(0);
    expect(status.services.every((service) => service.state === 'ready')).toBe(true);
    expect(status.consumers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ stream: 'WEBHOOKS', consumer: 'billing-sync' }),
        expect.objectContaining({ stream: 'WEBHOOKS', consumer: 'identity-sync' }),
      ]),
    );
    expect(status.inbox).toMatchObject({ unprocessed: 0 });
  });

  it('restarts a service that was killed, printing why', async () => {
    const target = mesh().health.find((service) => service.name === 'identity-sync')!;
    const pid = await pidListeningOn(target.url);
    process.kill(pid, 'SIGKILL');
    await waitFor(async () => output, {
      what: 'the restart notice',
      timeoutMs: 30_000,
      intervalMs: 100,
      until: (text) => /\[identity-sync\] exited unexpectedly \(killed by SIGKILL\).*restarting in/.test(text),
    });
    await waitFor(berthStatus, {
      what: 'identity-sync ready again',
      timeoutMs: 120_000,
      intervalMs: 2000,
      until: (result) => result.code === 0,
    });
    expect(await pidListeningOn(target.url)).not.toBe(pid);
  });

  it('reports a service whose consumer cannot pull as not ready', async () => {
    const nc = await connectTo(mesh().natsUrl);
    try {
      const jsm = await jetstreamManager(nc);
      const { config } = await jsm.consumers.info('WEBHOOKS', 'identity-sync');
      await jsm.consumers.delete('WEBHOOKS', 'identity-sync');
      const broken = await waitFor(berthStatus, {
        what: 'identity-sync not ready',
        timeoutMs: 60_000,
        intervalMs: 1000,
        until: (result) =>
          result.status.services.some((service) => service.name === 'identity-sync' && service.state === 'not ready'),
      });
      expect(broken.code).toBe(1);
      expect(broken.status.healthy).toBe(false);
      await jsm.consumers.add('WEBHOOKS', config);
      await waitFor(berthStatus, {
        what: 'identity-sync ready once its consumer is back',
        timeoutMs: 60_000,
        intervalMs: 1000,
        until: (result) => result.code === 0,
      });
    } finally {
      await nc.close();
    }
  });

  it('stops in order on Ctrl-C: every service drains and exits 0, then the servers stop', async () => {
    // A terminal's Ctrl-C: SIGINT to every process of the foreground group at once.
    process.kill(-start.pid!, 'SIGINT');
    expect(await exited).toBe(0);
    const lines = output.split('\n');
    const lastServiceStop = Math.max(
      ...['gateway', 'billing-sync', 'identity-sync', 'app-worker', 'scheduler-1', 'scheduler-2', 'dispatcher'].map(
        (name) => lines.findIndex((line) => line.startsWith(`[${name}] stopped (exit code 0)`)),
      ),
    );
    expect(lastServiceStop).toBeGreaterThan(0);
    expect(lines.findIndex((line) => line.startsWith('[berth] stopped'))).toBeGreaterThan(lastServiceStop);
    expect(output).not.toMatch(/Failed to stop cleanly|exited unexpectedly \(exit code/);
    expect(existsSync(join(dataDir, 'berth-local.json'))).toBe(false);
    await expect(connectTo(started.natsUrl, { maxReconnectAttempts: 0, timeout: 1000 })).rejects.toThrow();
    // Every service ran as its own NATS user the whole time, restarts and the consumer's removal included.
    expect(permissionViolations(await readFile(join(dataDir, 'nats.log'), 'utf8'))).toEqual([]);
  });
});
