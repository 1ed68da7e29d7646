import { BUCKETS, JOB_HEADERS } from '@berth/contract';
import type { JetStreamClient, JetStreamManager, MsgRequest } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { publishMessage, ServerClock } from '@berth/messaging';
import { encodeJobRecords, JOB_COUNT_HEADER, type JobRecord } from '../../job-record';
import { JOBS_STREAM_NAME, jobSubjectOf } from '../../names';
import { KvGroupCommit, partitionOf } from './kv-group-commit';
import { encodeKey, slotPartitionCodec, type KeyEntry, type SlotPartition } from './key-slot-partition';

export { encodeKey } from './key-slot-partition';
import { PARKED_JOBS_STREAM_NAME, parkedSubject } from './parked-jobs-stream';

/** A concurrency key and its limit, as one job carries it. */
export interface KeyLimit {
  key: string;
  limit: number;
}

/** One key's state, as `berth jobs limited` shows it. */
export interface KeySlotState {
  queue: string;
  key: string;
  limit: number;
  /** Jobs holding a slot now (ids). */
  running: string[];
  /** Jobs parked for a slot. */
  waiting: number;
}

/** Options for {@link openKvKeySlots}. */
export interface KvKeySlotOptions {
  /** Bucket name; default `berth_job_keys`. */
  bucket?: string;
  replicas?: number;
  /** The server's clock as this process reads it (shared with the rate limits); a new one by default. */
  clock?: ServerClock;
}

/**
 * Entries per queue: every key of a queue maps to one of them (FNV-1a). Every process of a queue must use the same
 * number (it is part of the bucket's layout, `<queue>._slots.<n>`).
 */
export const KEY_SLOT_PARTITIONS = 4;

const JOB_NAME_HEADER = JOB_HEADERS.jobName;

/**
 * Per-key concurrency across every worker and replica, group committed. The keys of a queue are spread over
 * {@link KEY_SLOT_PARTITIONS} entries of `berth_job_keys` (`<queue>._slots.<n>`), each listing, for its keys with a
 * holder or a parked job, the jobs holding a slot and their leases. Slot changes a process asks for one partition
 * while its previous write is in flight are applied together in one compare-and-set on the entry's revision
 * ({@link KvGroupCommit}): one fsync for many acquisitions and releases, and two workers can never both take the
 * last slot of a key (the loser reads again and is refused).
 *
 * Leases are judged by one clock, the server's: a holder is stamped with the server's timestamp of the write that
 * took or renewed it, and expires `leaseMs` after it by the server's time ({@link ServerClock}); no worker's wall
 * clock enters.
 *
 * A job that finds its key full is parked, not failed: stored on `parked.<queue>.<key>` in `JOBS_PARKED`, its message
 * acked. Whoever frees a slot hands it to the oldest parked job of the key ({@link wake}); the workers' sweep
 * ({@link sweep}) also wakes every key with parked jobs and a free slot, so a slot freed by a lease running out
 * (its holder's process died) or a release that failed strands nobody.
 */
export async function openKvKeySlots(
  js: JetStreamClient,
  jsm: JetStreamManager,
  options: KvKeySlotOptions = {},
): Promise<KeySlots> {
  const kv = await new Kvm(js).create(options.bucket ?? BUCKETS.jobKeys, {
    history: 1,
    replicas: options.replicas ?? 1,
    description: 'Per-key concurrency slots of Berth jobs (key: <queue>._slots.<partition>)',
  });
  const clock = options.clock ?? new ServerClock();
  // A first reading of the server's clock, before any lease is judged.
  clock.observeStreamInfo((await kv.status()).streamInfo);
  return new KeySlots(new KvGroupCommit(kv, slotPartitionCodec, clock), js, jsm);
}

/** See {@link openKvKeySlots}. */
export class KeySlots {
  constructor(
    readonly commits: KvGroupCommit<SlotPartition>,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
  ) {}

  /** Takes a slot of the key for this job (a job already holding one keeps it); false when every slot is taken. */
  acquire(queue: string, limit: KeyLimit, jobId: string, leaseMs: number): Promise<boolean> {
    return this.change(queue, limit, (slot) => {
      if (!(jobId in slot.holders) && Object.keys(slot.holders).length >= limit.limit) return false;
      slot.holders[jobId] = [0, leaseMs];
      return true;
    });
  }

  /** Pushes back the lease of a job still running. */
  async renew(queue: string, limit: KeyLimit, jobId: string, leaseMs: number): Promise<void> {
    await this.change(queue, limit, (slot) => {
      if (jobId in slot.holders) slot.holders[jobId] = [0, leaseMs];
    });
  }

  /** Frees the job's slot and, when jobs of the key are parked, hands free slots to them. */
  async release(queue: string, limit: KeyLimit, jobId: string, leaseMs: number): Promise<void> {
    const waiting = await this.change(queue, limit, (slot) => {
      delete slot.holders[jobId];
      return slot.waiting;
    });
    if (waiting > 0) await this.wake(queue, limit, leaseMs);
  }

  /**
   * Parks a job that found its key full (the record carries the attempts made so far), then wakes parked jobs in
   * case a slot was freed meanwhile. `parkId` makes a second park of the same delivery a duplicate JetStream drops.
   */
  async park(
    queue: string,
    name: string,
    limit: KeyLimit,
    record: JobRecord,
    parkId: string,
    leaseMs: number,
  ): Promise<{ seq: number }> {
    const ack = await publishMessage(this.js, {
      subject: parkedSubject(queue, encodeKey(limit.key)),
      data: encodeJobRecords([record]),
      msgId: parkId,
      expectedStream: PARKED_JOBS_STREAM_NAME,
      headers: { [JOB_NAME_HEADER]: name, [JOB_COUNT_HEADER]: '1' },
    });
    // Counted even for a duplicate (a redelivery parking again after a crash): an overcount costs a lookup, an
    // undercount is caught by the sweep. The parker wakes last, so a slot freed meanwhile is not missed.
    await this.change(queue, limit, (slot) => {
      slot.waiting += 1;
    });
    await this.wake(queue, limit, leaseMs);
    return { seq: ack.seq };
  }

  /**
   * Wakes the parked jobs of a queue whose key has a free slot, whatever the counts say: the keys with parked jobs
   * are read from `JOBS_PARKED` itself, and `limitOf` gives the limit of a parked job (from its record or its job's
   * `@Process`). Run by every worker of the queue every second; returns the keys it looked at.
   */
  async sweep(
    queue: string,
    leaseMs: number,
    limitOf: (record: JobRecord, name: string) => KeyLimit | undefined,
  ): Promise<number> {
    const info = await this.jsm.streams.info(PARKED_JOBS_STREAM_NAME, { subjects_filter: parkedSubject(queue, '*') });
    // The sweep keeps this process's reading of the server's clock fresh even while its writes start from what it
    // wrote last.
    this.commits.clock.observeStreamInfo(info);
    const subjects = Object.keys(info.state.subjects ?? {});
    if (subjects.length === 0) return 0;
    // Keys whose slots are all held (by live leases) are skipped without a lookup of their parked jobs.
    const full = new Set<string>();
    for (let partition = 0; partition < KEY_SLOT_PARTITIONS; partition++) {
      const { state } = await this.commits.read(`${queue}._slots.${partition}`);
      for (const [encoded, slot] of Object.entries(state.keys))
        if (Object.keys(slot.holders).length >= slot.limit) full.add(encoded);
    }
    for (const subject of subjects) {
      if (full.has(subject.slice(subject.lastIndexOf('.') + 1))) continue;
      const first = await this.firstParked(subject, 0);
      if (!first) continue;
      const limit = limitOf(first.record, first.name);
      if (limit) await this.wake(queue, limit, leaseMs);
    }
    return subjects.length;
  }

  /**
   * The keys (base64url) of a queue whose slots are all held and with at least as many jobs parked as slots: a
   * job more of one of them would only be parked too. The fair feeder leaves their fair jobs where they are.
   */
  async saturated(queue: string): Promise<Set<string>> {
    const keys = new Set<string>();
    for (let partition = 0; partition < KEY_SLOT_PARTITIONS; partition++) {
      const { state } = await this.commits.read(`${queue}._slots.${partition}`);
      for (const [encoded, slot] of Object.entries(state.keys))
        if (Object.keys(slot.holders).length >= slot.limit && slot.waiting >= slot.limit) keys.add(encoded);
    }
    return keys;
  }

  /** The keys of a queue (or every queue) with a job running or waiting. */
  async list(queue?: string): Promise<KeySlotState[]> {
    const states: KeySlotState[] = [];
    const kvKeys: string[] = [];
    for await (const kvKey of await this.commits.kv.keys(queue ? `${queue}._slots.*` : '*._slots.*'))
      kvKeys.push(kvKey);
    for (const kvKey of kvKeys) {
      const { state } = await this.commits.read(kvKey);
      const entryQueue = kvKey.split('.')[0];
      for (const [encoded, slot] of Object.entries(state.keys)) {
        const running = Object.keys(slot.holders);
        if (running.length === 0 && slot.waiting === 0) continue;
        states.push({
          queue: entryQueue,
          key: Buffer.from(encoded, 'base64url').toString('utf8'),
          limit: slot.limit,
          running,
          waiting: slot.waiting,
        });
      }
    }
    return states.sort((a, b) => b.waiting - a.waiting || a.key.localeCompare(b.key));
  }

  /** Resolves once every slot change asked so far is stored. */
  drain(): Promise<void> {
    return this.commits.drain();
  }

  /**
   * While the key has a free slot and a parked job, hands the slot to the oldest parked job: records it as holder,
   * puts it back on `JOBS` (message id `unpark:<id>:<seq>`, so two workers doing so store it once), deletes it from
   * `JOBS_PARKED`, and only then counts it out of `waiting` (whoever's delete succeeded). A waker that dies between
   * these steps leaves the parked message in place: the sweep hands it again once the slot's lease runs out.
   */
  async wake(queue: string, limit: KeyLimit, leaseMs: number): Promise<void> {
    const subject = parkedSubject(queue, encodeKey(limit.key));
    let from = 0;
    for (;;) {
      const parked = await this.firstParked(subject, from);
      if (!parked) return;
      from = parked.seq + 1;
      const { record } = parked;
      const outcome = await this.change(queue, limit, (slot): 'handed' | 'taken' | 'full' => {
        if (record.id in slot.holders) return 'taken';
        if (Object.keys(slot.holders).length >= limit.limit) return 'full';
        slot.holders[record.id] = [0, leaseMs];
        return 'handed';
      });
      if (outcome === 'full') return;
      await publishMessage(this.js, {
        subject: jobSubjectOf(queue, parked.name, record.priority),
        data: parked.data,
        msgId: `unpark:${record.id}:${parked.seq}`,
        expectedStream: JOBS_STREAM_NAME,
        headers: { [JOB_COUNT_HEADER]: '1' },
      });
      const deleted = await this.jsm.streams
        .deleteMessage(PARKED_JOBS_STREAM_NAME, parked.seq, false)
        .catch(() => false);
      if (deleted)
        await this.change(queue, limit, (slot) => {
          slot.waiting = Math.max(0, slot.waiting - 1);
        });
    }
  }

  private async firstParked(
    subject: string,
    from: number,
  ): Promise<{ seq: number; name: string; record: JobRecord; data: Uint8Array } | undefined> {
    // STREAM.MSG.GET takes `next_by_subj`; nats.js types name only `seq` and `last_by_subj`.
    const parked = await this.jsm.streams.getMessage(PARKED_JOBS_STREAM_NAME, {
      seq: from,
      next_by_subj: subject,
    } as unknown as MsgRequest);
    if (!parked) return undefined;
    const [record] = parked.json<JobRecord[]>();
    return { seq: parked.seq, name: parked.header.get(JOB_NAME_HEADER), record, data: parked.data };
  }

  /** One change of a key's slots, group committed with the other changes of its partition. */
  private change<R>(queue: string, limit: KeyLimit, update: (slot: KeyEntry) => R): Promise<R> {
    const encoded = encodeKey(limit.key);
    const kvKey = `${queue}._slots.${partitionOf(limit.key, KEY_SLOT_PARTITIONS)}`;
    return this.commits.change(kvKey, (state) => {
      const slot = (state.keys[encoded] ??= { limit: limit.limit, holders: {}, waiting: 0 });
      slot.limit = limit.limit;
      return update(slot);
    });
  }
}
