import { STREAM_SUBJECTS } from '@berth/contract';
import { DiscardPolicy, RetentionPolicy } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { ensureStream, type Messaging, type StreamSizing, type StreamSpec } from '@berth/messaging';
import { OUTBOUND_DELIVERIES_STREAM, OUTBOUND_EVENTS_STREAM } from './names';

const DAY_MS = 24 * 60 * 60 * 1000;
const GIB = 1024 ** 3;

/**
 * `OUTBOUND_EVENTS`: one message per event product code sends, on `outbound.events.<workspaceId>`.
 * - Work-queue retention: an event leaves once the fan-out has durably queued its deliveries; the event itself is
 *   kept in MongoDB for replays.
 * - `discard: new` with 1 GiB: a backlog of a million small events fits; beyond it `send` is refused rather than an
 *   unsent event dropped. (1 GiB is reserved on the server: the Berth streams then reserve 16 GiB of the 18.)
 * - Duplicate window 24 h: `send` with the same idempotency key inside it stores one event; later resends are
 *   skipped by the fan-out, which finds the event in MongoDB.
 */
export function outboundEventsStream(sizing: StreamSizing = {}): StreamSpec {
  return {
    name: OUTBOUND_EVENTS_STREAM,
    subjects: [...STREAM_SUBJECTS.outboundEvents],
    retention: RetentionPolicy.Workqueue,
    discard: DiscardPolicy.New,
    max_age: nanos(14 * DAY_MS),
    duplicate_window: nanos(DAY_MS),
    max_bytes: sizing.maxBytes ?? 1 * GIB,
    num_replicas: sizing.replicas ?? 1,
  };
}

/**
 * `OUTBOUND_DELIVERIES`: one message per (event, endpoint) on `outbound.deliver.<endpointId>`, read by that
 * endpoint's own consumer; and retries waiting as one-shot message schedules on `outbound.retry.<endpointId>.<id>`,
 * which the server moves to `outbound.deliver.<endpointId>` when due (so a retry 10 h away holds no consumer slot).
 * - Work-queue retention, no size or age limit: a delivery waits as long as its schedule says. `discard: old` only
 *   because JetStream refuses message schedules with `discard: new`; with no limits nothing is ever dropped, a full
 *   server refuses the publish.
 * - Duplicate window 24 h: the fan-out of one event, run again after a crash, queues each delivery once.
 */
export function outboundDeliveriesStream(sizing: StreamSizing = {}): StreamSpec {
  return {
    name: OUTBOUND_DELIVERIES_STREAM,
    subjects: [...STREAM_SUBJECTS.outboundDeliveries],
    retention: RetentionPolicy.Workqueue,
    discard: DiscardPolicy.Old,
    allow_msg_schedules: true,
    duplicate_window: nanos(DAY_MS),
    num_replicas: sizing.replicas ?? 1,
  };
}

/** Creates or updates both outbound streams; safe from every replica at every start. */
export async function ensureOutboundStreams(
  messaging: Pick<Messaging, 'jsm'>,
  sizing: StreamSizing = {},
): Promise<void> {
  await ensureStream(messaging.jsm, outboundEventsStream(sizing));
  await ensureStream(messaging.jsm, outboundDeliveriesStream(sizing));
}
