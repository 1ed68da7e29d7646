import { BUCKETS, JOB_HEADERS } from '@berth/contract';
import type { JetStreamClient, JetStreamManager, MsgRequest } from '@nats-io/jetstream';
import { Kvm, type KV, type KvEntry } from '@nats-io/kv';
import { isWrongLastSequence, publishMessage } from '@berth/messaging';
import { encodeJobRecords, JOB_COUNT_HEADER, type JobRecord } from '../../job-record';
import { JOBS_STREAM_NAME, jobSubjectOf } from '../../names';
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
}

/** One entry of the bucket: the holders with their lease expiry (epoch ms), and the jobs parked. */
interface SlotEntry {
  limit: number;
  holders: Record<string, number>;
  waiting: number;
}

const JOB_NAME_HEADER = JOB_HEADERS.jobName;

/**
 * Per-key concurrency across every worker and replica: a KV entry per queue and key (`<queue>.<base64url key>` in
 * `berth_job_keys`) lists the jobs holding a slot, changed only by compare-and-set on the entry's revision, so two
 * workers can never both take the last slot. A holder's lease runs for `leaseMs` and is renewed while its job runs,
 * so the slot of a worker that died is free again after the lease.
 *
 * A job that finds its key full is parked, not failed: stored on `parked.<queue>.<key>` in `JOBS_PARKED`, its message
 * acked. Whoever frees a slot (a job of that key finishing, failing, or the parker itself if a slot freed while it
 * parked) hands it to the oldest parked job: records it as holder, puts it back on `JOBS`, deletes it from
 * `JOBS_PARKED`. Parked jobs hold no worker, no consumer slot and no `max_ack_pending`, so other keys are not held up.
 */
export async function openKvKeySlots(
  js: JetStreamClient,
  jsm: JetStreamManager,
  options: KvKeySlotOptions = {},
): Promise<KeySlots> {
  const kv = await new Kvm(js).create(options.bucket ?? BUCKETS.jobKeys, {
    history: 1,
    replicas: options.replicas ?? 1,
    description: 'Per-key concurrency slots of Berth jobs (key: <queue>.<base64url concurrency key>)',
  });
  return new KeySlots(kv, js, jsm);
}

/** See {@link openKvKeySlots}. */
export class KeySlots {
  /** The entries this process wrote last, with their revision (see `change`). */
  private readonly known = new Map<string, { entry: SlotEntry | undefined; revision: number }>();

  constructor(
    private readonly kv: KV,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
  ) {}

  /** Takes a slot of the key for this job (a job already holding one keeps it); false when every slot is taken. */
  async acquire(queue: string, limit: KeyLimit, jobId: string, leaseMs: number): Promise<boolean> {
    let acquired = false;
    await this.change(queue, limit, (entry, now) => {
      acquired = jobId in entry.holders || Object.keys(entry.holders).length < limit.limit;
      if (!acquired) return undefined;
      entry.holders[jobId] = now + leaseMs;
      return entry;
    });
    return acquired;
  }

  /** Pushes back the lease of a job still running. */
  async renew(queue: string, limit: KeyLimit, jobId: string, leaseMs: number): Promise<void> {
    await this.change(queue, limit, (entry, now) => {
      if (!(jobId in entry.holders)) return undefined;
      entry.holders[jobId] = now + leaseMs;
      return entry;
    });
  }

  /** Frees the job's slot and, when jobs of the key are parked, hands free slots to them. */
  async release(queue: string, limit: KeyLimit, jobId: string, leaseMs: number): Promise<void> {
    let waiting = 0;
    await this.change(queue, limit, (entry) => {
      waiting = entry.waiting;
      if (!(jobId in entry.holders)) return undefined;
      delete entry.holders[jobId];
      return entry;
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
    // undercount could leave a parked job unwoken. The parker wakes last, so a slot freed meanwhile is not missed.
    await this.change(queue, limit, (entry) => {
      entry.waiting += 1;
      return entry;
    });
    await this.wake(queue, limit, leaseMs);
    return { seq: ack.seq };
  }

  /** The keys of a queue (or every queue) with a job running or waiting. */
  async list(queue?: string): Promise<KeySlotState[]> {
    const states: KeySlotState[] = [];
    const keys: string[] = [];
    for await (const key of await this.kv.keys(queue ? `${queue}.>` : '>')) keys.push(key);
    const now = Date.now();
    for (const kvKey of keys) {
      const entry = await this.kv.get(kvKey);
      const slot = entry ? decode(entry) : undefined;
      if (!slot) continue;
      const [entryQueue, encoded] = kvKey.split('.');
      const running = Object.entries(slot.holders)
        .filter(([, expires]) => expires > now)
        .map(([id]) => id);
      if (running.length === 0 && slot.waiting === 0) continue;
      states.push({
        queue: entryQueue,
        key: Buffer.from(encoded, 'base64url').toString('utf8'),
        limit: slot.limit,
        running,
        waiting: slot.waiting,
      });
    }
    return states.sort((a, b) => b.waiting - a.waiting || a.key.localeCompare(b.key));
  }

  /**
   * While the key has a free slot and a parked job, hands the slot to the oldest parked job. A parked job already
   * recorded as holder (another worker is handing it over, or it parked again before it knew) is put back on `JOBS`
   * without taking a second slot; the message id makes two workers doing so store it once.
   */
  private async wake(queue: string, limit: KeyLimit, leaseMs: number): Promise<void> {
    const subject = parkedSubject(queue, encodeKey(limit.key));
    let from = 0;
    for (;;) {
      // STREAM.MSG.GET takes `next_by_subj`; nats.js types name only `seq` and `last_by_subj`.
      const parked = await this.jsm.streams.getMessage(PARKED_JOBS_STREAM_NAME, {
        seq: from,
        next_by_subj: subject,
      } as unknown as MsgRequest);
      // Nothing parked: the count stays as it is (resetting it could race a parker that just counted itself; an
      // overcount only costs this lookup on the next release).
      if (!parked) return;
      from = parked.seq + 1;
      const [record] = parked.json<JobRecord[]>();
      let outcome: 'handed' | 'taken' | 'full' = 'full';
      await this.change(queue, limit, (entry, now) => {
        if (record.id in entry.holders) {
          outcome = 'taken';
          return undefined;
        }
        if (Object.keys(entry.holders).length >= limit.limit) {
          outcome = 'full';
          return undefined;
        }
        outcome = 'handed';
        entry.holders[record.id] = now + leaseMs;
        entry.waiting = Math.max(0, entry.waiting - 1);
        return entry;
      });
      if (outcome === 'full') return;
      const name = parked.header.get(JOB_NAME_HEADER);
      await publishMessage(this.js, {
        subject: jobSubjectOf(queue, name, record.priority),
        data: parked.data,
        msgId: `unpark:${record.id}:${parked.seq}`,
        expectedStream: JOBS_STREAM_NAME,
        headers: { [JOB_COUNT_HEADER]: '1' },
      });
      await this.jsm.streams.deleteMessage(PARKED_JOBS_STREAM_NAME, parked.seq, false).catch(() => false);
    }
  }

  /**
   * Read-modify-write of a key's entry by compare-and-set, retried on conflict; `update` returns undefined to leave
   * it. The entry this process last wrote is reused without reading it again (one round trip instead of two while no
   * other worker touched the key); a conflict means it is stale, and the entry is read afresh.
   */
  private async change(
    queue: string,
    limit: KeyLimit,
    update: (entry: SlotEntry, now: number) => SlotEntry | undefined,
  ): Promise<void> {
    const kvKey = `${queue}.${encodeKey(limit.key)}`;
    for (let round = 0; round < 100; round++) {
      let known = this.known.get(kvKey);
      const cached = known !== undefined;
      if (!known) {
        const current = await this.kv.get(kvKey);
        const entry = current && current.operation === 'PUT' ? decode(current) : undefined;
        known = { entry, revision: current?.revision ?? 0 };
      }
      const now = Date.now();
      const entry: SlotEntry = known.entry
        ? { ...known.entry, holders: { ...known.entry.holders } }
        : { limit: limit.limit, holders: {}, waiting: 0 };
      entry.limit = limit.limit;
      for (const [id, expires] of Object.entries(entry.holders)) if (expires <= now) delete entry.holders[id];
      const next = update(entry, now);
      if (!next && cached) {
        // A decision to change nothing must rest on the entry as it is, not as this process last wrote it.
        this.known.delete(kvKey);
        continue;
      }
      if (!next) return;
      try {
        const revision =
          known.revision > 0
            ? await this.kv.update(kvKey, JSON.stringify(next), known.revision)
            : await this.kv.create(kvKey, JSON.stringify(next));
        if (this.known.size >= 10000) this.known.clear();
        this.known.set(kvKey, { entry: next, revision });
        return;
      } catch (error) {
        this.known.delete(kvKey);
        if (!isWrongLastSequence(error)) throw error;
      }
    }
    throw new Error(`The concurrency slots of key ${limit.key} on ${queue} keep changing`);
  }
}

/** A concurrency key as a KV key token. */
export function encodeKey(key: string): string {
  return Buffer.from(key, 'utf8').toString('base64url');
}

function decode(entry: KvEntry): SlotEntry | undefined {
  try {
    const value = entry.json<SlotEntry>();
    return value && typeof value.holders === 'object'
      ? { limit: value.limit, holders: value.holders, waiting: value.waiting ?? 0 }
      : undefined;
  } catch {
    return undefined;
  }
}
