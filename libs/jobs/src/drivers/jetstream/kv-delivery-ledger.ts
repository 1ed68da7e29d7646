import { BUCKETS } from '@berth/contract';
import type { JetStreamClient } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';

/** Options for {@link openKvDeliveryLedger}. */
export interface KvDeliveryLedgerOptions {
  /** Bucket name; default `berth_job_deliveries`. */
  bucket?: string;
  /** Age after which an entry is dropped, in ms (default 15 days, past the JOBS stream's 14). */
  maxAgeMs?: number;
  replicas?: number;
}

/** One job message, as the ledger keys it. */
export interface DeliveredMessage {
  queue: string;
  stream: string;
  streamSequence: number;
}

/**
 * How many deliveries of a message a worker ended itself (a failed attempt it naked, a message it handed back at
 * shutdown). JetStream counts every delivery; a delivery no worker ended is one whose worker died (or stalled past
 * the lease) while holding it, so `deliveries − 1 − ended` is how many times the message took a worker down.
 */
export interface DeliveryLedger {
  /** Deliveries of the message ended by a worker (0 when none was recorded). */
  endedDeliveries(message: DeliveredMessage): Promise<number>;
  /** Records that a worker ended a delivery and hands the message back (`ended` is the new total). */
  recordEnded(message: DeliveredMessage, ended: number): Promise<void>;
  /** Drops the message's entry once the message is acked or terminated. */
  forget(message: DeliveredMessage): Promise<void>;
}

/**
 * Opens (creating it if needed) the KV bucket of ended deliveries: key `<queue>.<stream>.<sequence>`, value the
 * count. It is written only when a delivery fails or is handed back, and read only on a redelivery, so a job
 * that succeeds the first time costs nothing here.
 */
export async function openKvDeliveryLedger(
  js: JetStreamClient,
  options: KvDeliveryLedgerOptions = {},
): Promise<DeliveryLedger> {
  const kv = await new Kvm(js).create(options.bucket ?? BUCKETS.jobDeliveries, {
    history: 1,
    ttl: options.maxAgeMs ?? 15 * 24 * 60 * 60 * 1000,
    replicas: options.replicas ?? 1,
    description:
      'Deliveries of Berth job messages ended by a worker, to tell worker deaths apart (key: <queue>.<stream>.<seq>)',
  });
  return new KvDeliveryLedger(kv);
}

class KvDeliveryLedger implements DeliveryLedger {
  constructor(private readonly kv: KV) {}

  async endedDeliveries(message: DeliveredMessage): Promise<number> {
    const entry = await this.kv.get(ledgerKey(message));
    if (!entry || entry.operation !== 'PUT') return 0;
    const count = Number(entry.string());
    return Number.isInteger(count) && count > 0 ? count : 0;
  }

  async recordEnded(message: DeliveredMessage, ended: number): Promise<void> {
    await this.kv.put(ledgerKey(message), String(ended));
  }

  async forget(message: DeliveredMessage): Promise<void> {
    await this.kv.purge(ledgerKey(message));
  }
}

function ledgerKey(message: DeliveredMessage): string {
  return `${message.queue}.${message.stream}.${message.streamSequence}`;
}
