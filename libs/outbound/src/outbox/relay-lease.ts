import { acquireLease, releaseLease, renewLease, type Lease, type LeaseCollection } from '@berth/store';
import type { Clock } from '@berth/contract';

/** Options of {@link createRelayLease}: which lease collection, and who this relay is. */
export interface RelayLeaseOptions {
  /** A lease collection of its own (e.g. `outboxRelayLeases`); it needs no index beyond `_id`. */
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
  hold(clock: Clock): Promise<boolean>;
  /** Lets go, so a standby relay takes over at its next poll instead of after `leaseMs`. */
  release(clock: Clock): Promise<void>;
}

/**
 * One active relay among replicas, through a lease of `@berth/store`: one document per key, taken, renewed and
 * released by one conditional write each, so of the replicas racing for it exactly one wins. It only spares duplicate
 * sends: correctness never depends on it, since a relay paused past its lease and its successor overlap at worst by
 * sending entries twice under one key.
 */
export function createRelayLease(options: RelayLeaseOptions): RelayLease {
  const key = options.key ?? 'outbox-relay';
  const leaseMs = options.leaseMs ?? 30_000;
  let held: Lease | undefined;
  return {
    async hold(clock) {
      if (held) held = await renewLease({ leases: options.leases, lease: held, leaseMs, clock });
      if (held) return true;
      const result = await acquireLease({ leases: options.leases, key, owner: options.owner, leaseMs, clock });
      if (!result.acquired) return false;
      held = result.lease;
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
