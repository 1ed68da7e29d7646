import type { Status } from '@nats-io/nats-core';
import { defaultToolsBinDir, startNatsCluster, type NatsClusterHandle } from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import {
  connectMessaging,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_MAX_PINGS_OUT,
  DEFAULT_PING_INTERVAL_MS,
  type Messaging,
} from './index';

const logger = createLogger({ service: 'connection-test', level: 'silent' });

/** The first status of `type` the connection reports from now on. */
async function nextStatus(messaging: Messaging, type: Status['type']): Promise<Status> {
  for await (const status of messaging.nc.status()) if (status.type === type) return status;
  throw new Error(`the connection closed before a ${type}`);
}

describe('connectMessaging on a cluster', () => {
  let cluster: NatsClusterHandle;
  let messaging: Messaging | undefined;
  beforeAll(async () => {
    cluster = await startNatsCluster({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  }, 60000);
  afterAll(async () => {
    for (const node of cluster?.nodes ?? []) node.resume();
    await messaging?.close();
    await cluster?.stop();
  }, 60000);

  it('leaves a frozen server for another node within its pings, with the defaults', async () => {
    messaging = await connectMessaging({ servers: cluster.url, name: 'connection-test', logger });
    const frozen = cluster.nodes.find((node) => node.name === messaging!.nc.info?.server_name);
    expect(frozen).toBeDefined();
    const disconnected = nextStatus(messaging, 'disconnect');
    const reconnected = nextStatus(messaging, 'reconnect');
    const frozenAt = Date.now();
    frozen!.pause();
    try {
      await disconnected;
      const noticedAfterMs = Date.now() - frozenAt;
      expect(messaging.isConnected()).toBe(false);
      // Noticed on the tick that finds `maxPingsOut` pings unanswered: after that many intervals, before one more.
      expect(noticedAfterMs).toBeGreaterThanOrEqual(DEFAULT_PING_INTERVAL_MS * DEFAULT_MAX_PINGS_OUT - 100);
      expect(noticedAfterMs).toBeLessThan(DEFAULT_PING_INTERVAL_MS * (DEFAULT_MAX_PINGS_OUT + 1) + 1000);
      await reconnected;
      // A reconnect may try the frozen server first: its kernel accepts, it never greets, the client moves on.
      expect(Date.now() - frozenAt).toBeLessThan(noticedAfterMs + DEFAULT_CONNECT_TIMEOUT_MS + 1500);
      expect(messaging.isConnected()).toBe(true);
      expect(messaging.nc.info?.server_name).not.toBe(frozen!.name);
      await messaging.nc.flush();
    } finally {
      frozen!.resume();
    }
  }, 30000);
});
