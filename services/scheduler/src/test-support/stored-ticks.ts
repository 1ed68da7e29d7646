import type { JetStreamManager } from '@nats-io/jetstream';
import { isNotFound } from '@berth/messaging';

/** One cron tick message as JetStream stored it. */
export interface StoredTick {
  seq: number;
  subject: string;
  /** The body's `scheduledAt`. */
  scheduledAt: string;
  headers: Record<string, string>;
  /** When the server stored it. */
  storedAt: Date;
}

/** Every message stored on `subject` in JOBS, in stream order (JOBS keeps them until a worker acks them). */
export async function readStoredTicks(jsm: JetStreamManager, subject: string): Promise<StoredTick[]> {
  const { state } = await jsm.streams.info('JOBS');
  const ticks: StoredTick[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    let message;
    try {
      message = await jsm.streams.getMessage('JOBS', { seq });
    } catch (error) {
      if (isNotFound(error)) continue;
      throw error;
    }
    if (!message || message.subject !== subject) continue;
    const headers: Record<string, string> = {};
    for (const key of message.header?.keys() ?? []) headers[key] = message.header.get(key);
    ticks.push({
      seq: message.seq,
      subject: message.subject,
      scheduledAt: message.json<{ scheduledAt: string }>().scheduledAt,
      headers,
      storedAt: message.time,
    });
  }
  return ticks;
}
