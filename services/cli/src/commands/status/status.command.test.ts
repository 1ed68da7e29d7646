import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AckPolicy } from '@nats-io/jetstream';
import { defaultToolsBinDir, getFreePort, startNatsCluster } from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import { connectMessaging } from '@berth/messaging';
import { readClusterStatus, readServiceHealth, type MeshStatus } from './read-status';
import { formatStatus } from './status.command';

describe('berth status', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      response.writeHead(request.url === '/readyz' ? 503 : 404, { 'content-type': 'application/json' });
      response.end('{"status":"not_ready"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('tells a service that answers 503 (not ready) from one that does not answer (down)', async () => {
    const closed = `http://127.0.0.1:${await getFreePort()}`;
    const health = await readServiceHealth(
      [
        { name: 'identity-sync', url },
        { name: 'billing-sync', url: closed },
      ],
      1000,
    );
    expect(health).toEqual([
      { name: 'identity-sync', url, state: 'not ready', detail: '503 {"status":"not_ready"}' },
      { name: 'billing-sync', url: closed, state: 'down', detail: 'ECONNREFUSED' },
    ]);
  });

  it('shows services, consumer lag and the oldest unprocessed event on one screen', () => {
    const status: MeshStatus = {
      source: 'npm start (pid 1)',
      services: [{ name: 'identity-sync', url: 'http://127.0.0.1:9465', state: 'not ready', detail: '503' }],
      consumers: [
        {
          stream: 'WEBHOOKS',
          consumer: 'identity-sync',
          pending: 40,
          ackPending: 2,
          redelivered: 1,
          waitingPulls: 0,
          lag: 42,
        },
      ],
      inbox: {
        unprocessed: 42,
        setAside: 1,
        oldestUnprocessedAgeSeconds: 600,
        oldestUnprocessed: { provider: 'clerk', eventId: 'msg_1', receivedAt: '2026-01-01T00:00:00.000Z' },
      },
      cluster: {
        clustered: true,
        name: 'berth',
        streams: [
          {
            stream: 'WEBHOOKS',
            leader: 'berth-1',
            followers: [
              { node: 'berth-2', current: true, offline: false, lagOps: 0 },
              { node: 'berth-3', current: false, offline: true, lagOps: 12 },
            ],
          },
          { stream: 'JOBS', leader: null, followers: [] },
        ],
        nodes: [
          { node: 'berth-1', leads: ['WEBHOOKS'], leadsConsumers: 2, follows: [] },
          {
            node: 'berth-2',
            leads: [],
            leadsConsumers: 0,
            follows: [{ stream: 'WEBHOOKS', current: true, offline: false, lagOps: 0 }],
          },
          {
            node: 'berth-3',
            leads: [],
            leadsConsumers: 0,
            follows: [{ stream: 'WEBHOOKS', current: false, offline: true, lagOps: 12 }],
          },
        ],
      },
      healthy: false,
    };
    const text = formatStatus(status);
    expect(text).toContain('Berth (npm start (pid 1)): NOT HEALTHY');
    expect(text).toMatch(/identity-sync\s+not ready/);
    expect(text).toMatch(/WEBHOOKS\s+identity-sync\s+42\s+40\s+2\s+1\s+no/);
    expect(text).toContain('Inbox: 42 unprocessed, 1 set aside; oldest 10 min (clerk msg_1)');
    expect(text).toMatch(/berth-1\s+WEBHOOKS\s+2\s+-/);
    expect(text).toMatch(/berth-3\s+-\s+0\s+WEBHOOKS:offline/);
    expect(text).toContain('Streams without a leader (election or lost quorum): JOBS');
    expect(text.split('\n').length).toBeLessThan(35);
  });

  it('says what could not be read instead of failing', () => {
    const text = formatStatus({
      source: 'defaults',
      services: [],
      consumers: { error: 'CONNECTION_REFUSED' },
      inbox: { error: 'timeout' },
      cluster: { error: 'CONNECTION_REFUSED' },
      healthy: false,
    });
    expect(text).toContain('Services: none known');
    expect(text).toContain('Consumers: could not read NATS: CONNECTION_REFUSED');
    expect(text).toContain('Inbox: could not read MongoDB: timeout');
  });

  it('reads from JetStream which node of a cluster leads a stream and its consumers, and who follows', async () => {
    const cluster = await startNatsCluster({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
    const messaging = await connectMessaging({
      servers: cluster.url,
      name: 'status-cluster-test',
      logger: createLogger({ service: 'status-cluster-test', level: 'silent' }),
      // A cluster just formed on a loaded machine can take longer than the default 5 s to answer its first API call.
      timeoutMs: 20_000,
    });
    try {
      await messaging.jsm.streams.add({ name: 'STATUS_R3', subjects: ['status-r3.>'], num_replicas: 3 });
      await messaging.jsm.consumers.add('STATUS_R3', { durable_name: 'reader', ack_policy: AckPolicy.Explicit });
      const status = await readClusterStatus(messaging);
      if (!status.clustered) throw new Error('expected a clustered status');
      const leader = (await cluster.streamLeader('STATUS_R3')).name;
      expect(status.streams).toEqual([
        expect.objectContaining({ stream: 'STATUS_R3', leader, followers: expect.any(Array) }),
      ]);
      expect(status.nodes.map((node) => node.node)).toEqual(['berth-1', 'berth-2', 'berth-3']);
      expect(status.nodes.find((node) => node.node === leader)?.leads).toEqual(['STATUS_R3']);
      expect(status.nodes.filter((node) => node.follows.length === 1)).toHaveLength(2);
      expect(status.nodes.reduce((sum, node) => sum + node.leadsConsumers, 0)).toBe(1);
    } finally {
      await messaging.close();
      await cluster.stop();
    }
  }, 60000);
});
