import { acquireLease, releaseLease, renewLease, type Lease, type LeaseCollection } from '@berth/inbox';
import type { OutboxClock } from './outbox-types';

/** Options of {@link createRelayLease}: which lease collection, and who this relay is. */
export interface RelayLeaseOptions {
  /** A lease collection of its own (e.g. `outboxRelayLeases`), indexed with `ensureLeaseIndexes` of `@berth/inbox`. */
  leases: LeaseCollection;
  /** This replica's id: pod name, or hostname and pid. */
  owner: string;
  /** What is leased; one key per set of collections relayed together. `outbox-relay` by default. */
  key?: string;
  /** How long a relay that stopped renewing (crashed, paused) keeps the others waiting; 30 000 ms by default. */
  leaseMs?: number;
}

/** The relay's hold on its lease. */
export interface RelayLease {
  /** Renews the lease if held, else tries to take it; true when this relay may run a pass now. */
  hold(clock: OutboxClock): Promise<boolean>;
  /** Lets go, so a standby relay takes over at its next poll instead of after `leaseMs`. */
  release(clock: OutboxClock): Promise<void>;
}

/**
 * One active relay among replicas, through the inbox's lease (taken by inserting the next generation, so exactly one
 * replica wins on MongoDB and on FerretDB alike). It only spares duplicate sends: correctness never depends on it,
 * since a relay paused past its lease and its successor overlap at worst by sending entries twice under one key.
 */
export function createRelayLease(options: RelayLeaseOptions): RelayLease {
  const key = options.key ?? 'outbox-relay';
  const leaseMs = options.leaseMs ?? 30_000;
  let held: Lease | undefined;
  let lastGeneration: number | undefined;
  return {
    async hold(clock) {
      if (held && (await renewLease({ leases: options.leases, lease: held, leaseMs, clock }))) return true;
      held = undefined;
      const result = await acquireLease({
        leases: options.leases,
        key,
        owner: options.owner,
        leaseMs,
        clock,
        generationHint: lastGeneration,
        pruneAfterMs: leaseMs,
      });
      if (!result.acquired) return false;
      held = result.lease;
      lastGeneration = held.generation;
      return true;
    },
    async release(clock) {
      if (!held) return;
      const lease = held;
      held = undefined;
      await releaseLease({ leases: options.leases, lease, clock });
    },
  };
}
