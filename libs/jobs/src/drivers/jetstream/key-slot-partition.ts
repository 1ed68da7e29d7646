import { parsePartitionJson, type PartitionCodec } from './kv-group-commit';

/** A holder's lease: the server's time of the write that took or renewed it (0: this write), and its length. */
export type Lease = [at: number, leaseMs: number];

/** One key's slots within a partition entry. */
export interface KeyEntry {
  limit: number;
  holders: Record<string, Lease>;
  /** Jobs counted as parked (a hint for `release`; the sweep finds parked jobs from the stream itself). */
  waiting: number;
}

/** A partition entry: the keys (base64url) with a holder or a parked job; the others are left out. */
export interface SlotPartition {
  keys: Record<string, KeyEntry>;
}

/** How a partition entry is read and written: leases stamped 0 are read as the write's server time. */
export const slotPartitionCodec: PartitionCodec<SlotPartition> = {
  decode(text, writtenAt) {
    const value = parsePartitionJson<KeyEntry>(text);
    const keys: Record<string, KeyEntry> = {};
    for (const [key, slot] of Object.entries(value?.keys ?? {})) {
      const holders: Record<string, Lease> = {};
      for (const [id, [at, leaseMs]] of Object.entries(slot.holders ?? {})) holders[id] = [at || writtenAt, leaseMs];
      keys[key] = { limit: slot.limit, holders, waiting: slot.waiting ?? 0 };
    }
    return { keys };
  },
  encode(state) {
    const keys: Record<string, KeyEntry> = {};
    for (const [key, slot] of Object.entries(state.keys))
      if (slot.waiting > 0 || Object.keys(slot.holders).length > 0) keys[key] = slot;
    return JSON.stringify({ keys });
  },
  prune(state, now) {
    for (const slot of Object.values(state.keys))
      for (const [id, [at, leaseMs]] of Object.entries(slot.holders))
        if (at !== 0 && at + leaseMs <= now) delete slot.holders[id];
  },
  settle(state, writtenAt) {
    for (const [key, slot] of Object.entries(state.keys)) {
      let held = false;
      for (const [id, lease] of Object.entries(slot.holders)) {
        held = true;
        if (lease[0] === 0) slot.holders[id] = [writtenAt, lease[1]];
      }
      if (!held && slot.waiting <= 0) delete state.keys[key];
    }
  },
};

/** A concurrency key as a KV key token. */
export function encodeKey(key: string): string {
  return Buffer.from(key, 'utf8').toString('base64url');
}
