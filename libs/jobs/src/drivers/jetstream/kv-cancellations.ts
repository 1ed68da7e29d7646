import { BUCKETS, systemClock, type Clock } from '@berth/contract';
import type { JetStreamClient } from '@nats-io/jetstream';
import { Kvm, KvWatchInclude, type KV, type KvEntry } from '@nats-io/kv';
import { CancellationSet, type CancellationRecord, type Cancellations, type CancellationWatch } from '../cancellations';

/** Options for {@link openKvCancellations}. */
export interface KvCancellationOptions {
  /** Stamps `cancelledAt`; the system clock by default. */
  clock?: Clock;
  /** Bucket name; default `berth_job_cancel`. */
  bucket?: string;
  /** How long a cancellation is remembered, in ms (default 15 days, past the JOBS stream's 14). */
  maxAgeMs?: number;
  replicas?: number;
}

/** The default cancellation bucket. */
export const CANCELLATIONS_BUCKET = BUCKETS.jobCancellations;

/**
 * Opens (creating it if needed) the KV bucket of cancelled jobs: key `<queue>.<base64url(jobId)>`, value a
 * {@link CancellationRecord}. A worker watches its queue's keys (a push consumer on the bucket's stream, so a
 * cancellation reaches every worker within a network round trip) after loading those already stored: a job
 * cancelled while it waits is dropped when a worker takes it, a running one has its signal fired and its
 * attempt settled at once. Entries expire after `maxAgeMs` (a job can't wait longer than the JOBS stream keeps it).
 */
export async function openKvCancellations(
  js: JetStreamClient,
  options: KvCancellationOptions = {},
): Promise<Cancellations> {
  const kv = await new Kvm(js).create(options.bucket ?? CANCELLATIONS_BUCKET, {
    history: 1,
    ttl: options.maxAgeMs ?? 15 * 24 * 60 * 60 * 1000,
    replicas: options.replicas ?? 1,
    description: 'Cancelled Berth jobs (key: <queue>.<base64url job id>)',
  });
  return new KvCancellations(kv, options.clock ?? systemClock);
}

class KvCancellations implements Cancellations {
  constructor(
    private readonly kv: KV,
    private readonly clock: Clock,
  ) {}

  async cancel(queue: string, jobId: string, reason?: string): Promise<CancellationRecord> {
    const record: CancellationRecord = {
      queue,
      jobId,
      cancelledAt: this.clock.now().toISOString(),
      ...(reason ? { reason } : {}),
    };
    await this.kv.put(cancellationKey(queue, jobId), JSON.stringify(record));
    return record;
  }

  async watch(queue: string): Promise<CancellationWatch> {
    const set = new CancellationSet();
    // Updates first, then what is stored: a cancellation written in between is seen by both, none by neither.
    const updates = await this.kv.watch({
      key: `${queue}.>`,
      include: KvWatchInclude.UpdatesOnly,
      ignoreDeletes: true,
    });
    const pump = (async () => {
      for await (const entry of updates) {
        const record = decodeRecord(entry);
        if (record) set.add(record);
      }
    })();
    for (const record of await this.list(queue)) set.add(record);
    return {
      get: (jobId) => set.get(jobId),
      onCancel: (jobId, listener) => set.onCancel(jobId, listener),
      stop: async () => {
        updates.stop();
        await pump.catch(() => undefined);
      },
    };
  }

  async list(queue?: string): Promise<CancellationRecord[]> {
    const records: CancellationRecord[] = [];
    const keys = await this.kv.keys(queue ? `${queue}.>` : '>');
    const names: string[] = [];
    for await (const key of keys) names.push(key);
    for (const key of names) {
      const entry = await this.kv.get(key);
      const record = entry && entry.operation === 'PUT' ? decodeRecord(entry) : undefined;
      if (record) records.push(record);
    }
    return records.sort((a, b) => a.cancelledAt.localeCompare(b.cancelledAt));
  }
}

/** The KV key of a cancelled job: `<queue>.<base64url(jobId)>` (job ids may hold characters keys can't). */
export function cancellationKey(queue: string, jobId: string): string {
  return `${queue}.${Buffer.from(jobId, 'utf8').toString('base64url')}`;
}

function decodeRecord(entry: KvEntry): CancellationRecord | undefined {
  try {
    const value = entry.json<CancellationRecord>();
    return typeof value?.jobId === 'string' && typeof value.queue === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
