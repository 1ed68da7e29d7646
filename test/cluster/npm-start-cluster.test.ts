/**
 * `BERTH_NATS_CLUSTER=3 BERTH_SCALE=billing-sync=2 npm start` (the local mesh, free ports, a temporary folder): three
 * nats-servers with Berth's users, every stream and bucket R3, two billing-sync replicas on health ports of their
 * own, all of it in berth-local.json, and `berth status` naming what each node leads.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@berth/local-infra/testing';
import { readLocalMesh } from '@berth/config';
import { createLogger } from '@berth/logger';
import { connectMessaging } from '@berth/messaging';
import { parseClusterSize, parseScale, startLocalMesh, type LocalMeshHandle } from '../../deploy/local/local-mesh';
import { readMeshStatus } from '../../services/cli/src/commands/status/read-status';

jest.setTimeout(300_000);

describe('BERTH_NATS_CLUSTER and BERTH_SCALE', () => {
  it('parse what they are given, and refuse the rest', () => {
    expect(parseScale('billing-sync=3, gateway=2,')).toEqual({ 'billing-sync': 3, gateway: 2 });
    expect(parseScale(undefined)).toEqual({});
    expect(() => parseScale('billing-sync=0')).toThrow(/not service=replicas/);
    expect(parseClusterSize(undefined)).toBe(1);
    expect(parseClusterSize('3')).toBe(3);
    expect(() => parseClusterSize('2')).toThrow(/must be 1, 3 or 5/);
  });

  it('runs the mesh on three nodes with R3 streams and two billing-sync replicas, as berth-local.json says', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'berth-npm-start-cluster-'));
    let mesh: LocalMeshHandle | undefined;
    try {
      mesh = await startLocalMesh({
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          BERTH_TOOLS_DIR: process.env.BERTH_TOOLS_DIR,
          LOG_FORMAT: 'json',
          LOG_LEVEL: 'warn',
          BERTH_NATS_CLUSTER: '3',
          BERTH_SCALE: 'billing-sync=2',
        },
        dataDir,
        freePorts: true,
        write: () => undefined,
      });
      const file = readLocalMesh(join(dataDir, 'berth-local.json'))!;
      expect(file.natsNodes?.map((node) => node.name)).toEqual(['berth-1', 'berth-2', 'berth-3']);
      expect(file.natsUrl.split(',')).toHaveLength(3);
      expect(file.health.map((target) => target.name)).toEqual(
        expect.arrayContaining(['billing-sync-1', 'billing-sync-2']),
      );
      const started = mesh;
      const messaging = await connectMessaging({
        servers: file.natsUrl,
        name: 'npm-start-cluster-test',
        logger: createLogger({ service: 'npm-start-cluster-test', level: 'silent' }),
      });
      try {
        const status = await waitFor(
          () =>
            readMeshStatus({
              targets: file.health,
              source: 'test',
              messaging: () => Promise.resolve(messaging),
              db: () => Promise.reject(new Error('not read here')),
            }),
          {
            what: 'every service and replica ready',
            timeoutMs: 240_000,
            intervalMs: 1000,
            until: (read) => read.services.every((service) => service.state === 'ready'),
          },
        );
        if ('error' in status.cluster || !status.cluster.clustered) throw new Error('expected a clustered status');
        expect(status.cluster.nodes.map((node) => node.node)).toEqual(['berth-1', 'berth-2', 'berth-3']);
        for (const stream of ['WEBHOOKS', 'JOBS']) {
          expect((await messaging.jsm.streams.info(stream)).config.num_replicas).toBe(3);
          expect(status.cluster.streams.find((entry) => entry.stream === stream)?.leader).toMatch(/^berth-[123]$/);
        }
        // Every stream and KV bucket the services created is R3.
        const single = (await messaging.jsm.streams.list().next()).filter((info) => info.config.num_replicas !== 3);
        expect(single.map((info) => info.config.name)).toEqual([]);
      } finally {
        await messaging.close();
      }
      expect(started.natsViolations()).toEqual([]);
    } finally {
      await mesh?.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
