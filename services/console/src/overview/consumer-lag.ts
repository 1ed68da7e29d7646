import { isNotFound, type Messaging } from '@berth/messaging';
import { WEBHOOKS_STREAM } from '@berth/inbox';
import { JOBS_STREAM_NAME } from '@berth/jobs';
import { OUTBOUND_DELIVERIES_STREAM, OUTBOUND_EVENTS_STREAM } from '@berth/outbound';
import type { ConsumerLag } from '../api/contract';

export type { ConsumerLag };

/** Every durable consumer of Berth's streams, with its lag, from `consumers.list` (one request per stream). */
export async function consumerLag(messaging: Messaging): Promise<ConsumerLag[]> {
  const rows: ConsumerLag[] = [];
  for (const stream of [WEBHOOKS_STREAM, JOBS_STREAM_NAME, OUTBOUND_EVENTS_STREAM, OUTBOUND_DELIVERIES_STREAM]) {
    try {
      for (const info of await messaging.jsm.consumers.list(stream).next()) {
        if (!info.config.durable_name) continue;
        rows.push({
          stream,
          consumer: info.name,
          pending: info.num_pending,
          ackPending: info.num_ack_pending,
          redelivered: info.num_redelivered,
          waiting: info.num_waiting,
          lastActive: info.ack_floor.last_active ? String(info.ack_floor.last_active) : null,
        });
      }
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  return rows;
}
