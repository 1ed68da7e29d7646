/**
 * bench:ingest's default mode: each gateway inside its whole system, both systems up side by side for the whole
 * run. Berth is the mesh `npm start` runs (every service, nats-server, the embedded store); the peer is the seeds'
 * stack (Fastify writing the PostgreSQL inbox row and the BullMQ job, its worker, Redis). While one gateway is
 * loaded its consumers apply what it accepts, and the other system sits up beside it; after each round the loaded
 * system drains before the next round begins, so no round inherits another's backlog.
 */
import { startBenchStacks } from './e2e/start-stacks';
import { stripeRequestSigner } from './e2e/events';
import type { E2eStack } from './e2e/stack';
import type { BenchTarget } from './berth-target';

/** What the benchmark may load: a target per system, each a view of its stack that stays up between rounds. */
export interface MeshTargets {
  targets: Partial<Record<'peer' | 'berth', () => Promise<BenchTarget>>>;
  stop(): Promise<void>;
}

/** The gateway of a stack, and the process the gateway writes to (nats-server, Redis). */
const GATEWAY: Record<string, { gateway: string; store: string }> = {
  berth: { gateway: 'gateway', store: 'nats-server' },
  peer: { gateway: 'peer-gateway', store: 'redis-server' },
};

/** How long a stack may take to apply a round's backlog after the load stops. */
const DRAIN_TIMEOUT_MS = 600_000;

function targetOf(role: 'berth' | 'peer', stack: E2eStack, standInPid: number): () => Promise<BenchTarget> {
  const sign = stripeRequestSigner(stack.secrets.stripe!);
  return async () => {
    const processes: Record<string, number> = { ...(await stack.processes()), 'stripe-stand-in': standInPid };
    const rowsBefore = await stack.rowCount();
    return {
      url: stack.url('stripe'),
      pid: processes[GATEWAY[role].gateway],
      infraPid: processes[GATEWAY[role].store],
      makeRequest: () => sign(),
      processes: async () => ({ ...(await stack.processes()), 'stripe-stand-in': standInPid }),
      // Accepted means applied here: the stack drains first, then its inbox has one new row per accepted event.
      async countAccepted() {
        await stack.waitProcessed('stripe', [], DRAIN_TIMEOUT_MS);
        return (await stack.rowCount()) - rowsBefore;
      },
      // The system stays up for the next round; a round ends when it has drained.
      stop: () => stack.waitProcessed('stripe', [], DRAIN_TIMEOUT_MS).then(() => undefined),
    };
  };
}

/** Starts both systems (those of `targets`) and returns a target per system. */
export async function startMeshTargets(options: {
  targets: readonly string[];
  logDir: string;
  postgresUrl: string;
}): Promise<MeshTargets> {
  const started = await startBenchStacks(options);
  const targets: MeshTargets['targets'] = {};
  for (const stack of started.stacks) {
    const role = stack.name.startsWith('berth') ? 'berth' : 'peer';
    targets[role] = targetOf(role, stack, started.standInPid);
  }
  return { targets, stop: started.stop };
}
