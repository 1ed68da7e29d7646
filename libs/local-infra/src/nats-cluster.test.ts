import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { waitFor } from './testing';
import { defaultToolsBinDir, startNatsCluster, type NatsClusterHandle } from './index';

const binDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);

describe('startNatsCluster', () => {
  let cluster: NatsClusterHandle;
  let nc: NatsConnection | undefined;
  beforeAll(async () => {
    cluster = await startNatsCluster({ binDir });
  }, 60000);
  afterAll(async () => {
    await nc?.close();
    await cluster?.stop();
  }, 60000);

  it('elects a meta leader over three routed nodes, each fsyncing always', async () => {
    const state = await cluster.state();
    expect(state.metaLeader).toMatch(/^berth-[123]$/);
    expect(state.peers.map((peer) => peer.name).sort()).toEqual(
      ['berth-1', 'berth-2', 'berth-3'].filter((name) => name !== state.metaLeader),
    );
    for (const node of cluster.nodes) {
      const varz = (await (await fetch(`${node.server.monitoringUrl}/varz`)).json()) as {
        jetstream?: { config?: { sync_interval?: number | string; sync_always?: boolean } };
        cluster?: { name?: string };
      };
      expect(varz.cluster?.name).toBe('berth');
      expect(varz.jetstream?.config?.sync_always).toBe(true);
    }
  });

  it('keeps an R3 stream writable and readable when its leader is SIGKILLed, and rejoins the node', async () => {
    nc = await connect({ servers: cluster.urls, reconnectTimeWait: 100, maxReconnectAttempts: -1 });
    const jsm = await jetstreamManager(nc, { timeout: 20000 });
    const stream = `CLUSTER_TEST_${process.pid}`;
    await jsm.streams.add({ name: stream, subjects: [`cluster-test-${process.pid}.>`], num_replicas: 3 });
    const js = jetstream(nc, { timeout: 20000 });
    for (let n = 0; n < 10; n++) await js.publish(`cluster-test-${process.pid}.a`, `m${n}`, { msgID: `m${n}` });

    const leader = await cluster.streamLeader(stream);
    const pid = leader.pid;
    await leader.kill();
    expect(leader.running).toBe(false);
    expect(cluster.url.split(',')).toHaveLength(2);
    const next = await cluster.streamLeader(stream, 20000);
    expect(next.name).not.toBe(leader.name);
    const ack = await js.publish(`cluster-test-${process.pid}.a`, 'after', { msgID: 'after', timeout: 10000 });
    expect(ack.seq).toBe(11);

    await leader.restart();
    expect(leader.pid).not.toBe(pid);
    await cluster.waitForMetaLeader();
    // The rejoined node catches up on what it missed; until its leader answers with every replica current, a stream
    // info taken mid-catch-up may show an older state. An acked message that never came back would time this out.
    const info = await waitFor(() => jsm.streams.info(stream), {
      what: `${stream} with all 11 messages and every replica current`,
      timeoutMs: 30000,
      intervalMs: 250,
      until: (state) =>
        state.state.messages === 11 &&
        (state.cluster?.replicas ?? []).length === 2 &&
        (state.cluster?.replicas ?? []).every((replica) => replica.current),
    });
    expect(info.state.messages).toBe(11);
    expect(info.cluster?.replicas?.map((replica) => replica.name).sort()).toEqual(
      cluster.nodes
        .map((node) => node.name)
        .filter((name) => name !== info.cluster?.leader)
        .sort(),
    );
  }, 90000);

  it('sees no meta leader while two of three nodes are down (SIGSTOP one, SIGKILL one), and one again after', async () => {
    const [first, second] = cluster.nodes.filter((node) => node.running);
    second.pause();
    await first.kill();
    const survivor = cluster.nodes.find((node) => node !== first && node !== second)!;
    await waitFor(async () => (await cluster.state()).metaLeader === undefined, {
      what: 'the survivor to lose its meta leader',
      timeoutMs: 30000,
    });
    await expect(cluster.metaLeader(3000)).rejects.toThrow(/no meta leader/);
    expect(survivor.running).toBe(true);
    second.resume();
    await first.restart();
    const leader = await cluster.waitForMetaLeader();
    expect(leader.running).toBe(true);
  }, 90000);
});
