/**
 * Issue 26: Berth on a three-node JetStream cluster (R3 streams), under Stripe traffic through the gateway.
 *
 * - The leader of stream WEBHOOKS is SIGKILLed mid-burst (40 events/s for 14 s): no 200 is slow (< 2 s), and the
 *   503s are those of the election only (the gateway answers a publish that finds no stream leader with a 503 at
 *   once: "no JetStream stream captures the subject"), sent within a few seconds of the kill; the node rejoins.
 * - Two of three nodes are down (no quorum): every answer is a 503, never a 200 for an event that is not stored;
 *   once a node is back the gateway answers 200 again by itself.
 * After each, every event answered 200 is processed exactly once (inbox `processedAt`, one "Webhook event
 * processed" line). The provider's part is played too: an event answered 503 is sent again until a 200.
 */
import { randomUUID } from 'node:crypto';
import { waitFor } from '@berth/local-infra/testing';
import { startMesh, type Mesh } from '../support/mesh';
import {
  caseLedger,
  retryUntilAccepted,
  sendBurst,
  sendPaced,
  stripeEvent,
  summarize,
  type Answered,
} from './stripe-burst';

const run = randomUUID().slice(0, 8);
let mesh: Mesh;

beforeAll(async () => {
  mesh = await startMesh({ name: 'cluster_failover', clusterSize: 3, services: ['gateway', 'billing-sync'] });
}, 180_000);
afterAll(async () => {
  await mesh?.stop();
}, 60_000);

const send = (event: object): ReturnType<Mesh['sender']['sendStripe']> => mesh.sender.sendStripe(event);
/** Stripe knows each event's customer, linked to no workspace: processed as "nothing to sync". */
const knowCustomers = (ids: readonly string[]): void => {
  for (const id of ids) mesh.standIn.setCustomer({ id: `cus_${id}`, metadata: {} });
};
const processedCount = (eventId: string): number =>
  mesh.service('billing-sync').logged('Webhook event processed', { eventId }).length;

async function expectProcessedOnce(name: string, ids: string[], answers: Answered[]): Promise<void> {
  await waitFor(
    () =>
      mesh.inbox.events.countDocuments({
        _id: { $in: ids.map((id) => `stripe:${id}`) },
        processedAt: { $ne: null },
      }),
    {
      what: `${name}: every accepted event processed`,
      timeoutMs: 60_000,
      intervalMs: 250,
      until: (n) => n === ids.length,
    },
  );
  await mesh.waitForConsumerSettled('billing-sync', 30_000);
  const ledger = await caseLedger(name, mesh.db, ids, answers, processedCount);
  expect({ missing: ledger.missingIds, twice: ledger.twiceIds }).toEqual({ missing: [], twice: [] });
  expect(ledger.appliedOnce).toBe(ids.length);
}

describe('the gateway and billing-sync on a three-node JetStream cluster', () => {
  it('WEBHOOKS is R3 on the cluster, with a leader and two current followers', async () => {
    const info = await mesh.messaging.jsm.streams.info('WEBHOOKS');
    expect(info.config.num_replicas).toBe(3);
    const state = await mesh.natsCluster!.streamState('WEBHOOKS');
    expect(state?.leader).toMatch(/^berth-[123]$/);
    expect(state?.consumers['billing-sync']?.leader).toMatch(/^berth-[123]$/);
  });

  it('rides through a SIGKILL of the WEBHOOKS leader mid-burst: every 200 is processed once', async () => {
    const cluster = mesh.natsCluster!;
    const leader = await cluster.streamLeader('WEBHOOKS');
    // 14 s at 40 events/s, the kill after 2 s: JetStream's followers call an election only after missing the
    // leader's heartbeats for a randomized 4 to 9 s, and the stream takes no write until it has a leader.
    const ids = Array.from({ length: 560 }, (_, n) => `evt_leader_${run}_${n}`);
    knowCustomers(ids);
    let killed: Promise<void> | undefined;
    try {
      const answers = await sendPaced(send, ids, 40, (count) => {
        if (count === 80) killed = leader.kill();
      });
      await killed;
      const burst = summarize(answers);
      // The cluster keeps a quorum: 200s, and 503s only while the stream elects its next leader.
      expect(burst.other).toBe(0);
      expect(burst.slowestOkMs).toBeLessThan(2000);
      expect(burst.unavailableSpanMs).toBeLessThan(11_000);
      expect(answers.slice(-40).map((answer) => answer.status)).toEqual(answers.slice(-40).map(() => 200));
      const next = await cluster.streamLeader('WEBHOOKS', 20_000);
      expect(next.name).not.toBe(leader.name);

      const retries = await retryUntilAccepted(send, answers, Date.now() + 60_000);
      const all = [...answers, ...retries];
      expect(new Set(all.filter((a) => a.status === 200).map((a) => a.eventId)).size).toBe(ids.length);
      await expectProcessedOnce('SIGKILL WEBHOOKS leader', ids, all);
    } finally {
      await killed;
      if (!leader.running) await leader.restart();
      await cluster.waitForMetaLeader();
    }
  }, 180_000);

  it('answers 503, never 200, while two of three nodes are down, and 200 again once one is back', async () => {
    const cluster = mesh.natsCluster!;
    const leader = await cluster.streamLeader('WEBHOOKS');
    const other = cluster.nodes.find((node) => node !== leader && node.running)!;
    await Promise.all([leader.kill(), other.kill()]);
    try {
      const down = Array.from({ length: 12 }, (_, n) => `evt_noquorum_${run}_${n}`);
      knowCustomers([...down, `evt_noquorum_${run}_probe`]);
      const duringOutage = await sendBurst(send, down, 4);
      expect(duringOutage.map((answer) => answer.status)).toEqual(down.map(() => 503));

      await other.restart();
      // Resumes by itself: a new event is stored (200) once the two nodes elect a leader.
      const probe = `evt_noquorum_${run}_probe`;
      const resumed = await waitFor(
        async () => {
          const answer = await send(stripeEvent(probe));
          return `${answer.status} ${answer.body}`;
        },
        {
          what: 'the gateway to answer 200 once a quorum is back',
          timeoutMs: 60_000,
          intervalMs: 250,
          until: (answer) => answer.startsWith('200 '),
        },
      );
      expect(resumed).toMatch(/^200 /);
      const retries = await retryUntilAccepted(send, duringOutage, Date.now() + 60_000);
      await leader.restart();
      await cluster.waitForMetaLeader();
      await expectProcessedOnce(
        'two of three nodes down',
        [...down, probe],
        [...duringOutage, ...retries, { eventId: probe, status: 200, elapsedMs: 0 }],
      );
    } finally {
      for (const node of [other, leader]) if (!node.running) await node.restart();
      await cluster.waitForMetaLeader();
    }
  }, 180_000);
});
