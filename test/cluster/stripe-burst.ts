/**
 * Stripe traffic for the cluster fault cases (the jest suite and `npm run soak -- --cluster`): bursts of signed
 * `customer.subscription.updated` events through the gateway, every answer recorded with its latency, then what a
 * provider does with a 503 (send the same event again until a 200), and the ledger of one case from the inbox and
 * billing-sync's "Webhook event processed" lines.
 */
import type { Db } from 'mongodb';
import type { GatewayAnswer } from '../support/webhook-senders';

/** One request of a burst. */
export interface Answered {
  eventId: string;
  status: number;
  elapsedMs: number;
  /** When the request was sent (`performance.now()`). */
  sentAt?: number;
}

/** What sends a Stripe event to the gateway (the tests' WebhookSender). */
export type SendStripe = (event: object) => Promise<GatewayAnswer>;

/** A Stripe event for a customer linked to no workspace: processed through the inbox as "nothing to sync". */
export function stripeEvent(eventId: string, customerId = `cus_${eventId}`): object {
  return {
    id: eventId,
    object: 'event',
    type: 'customer.subscription.updated',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    data: { object: { id: `sub_${eventId}`, object: 'subscription', customer: customerId } },
  };
}

/** One request: its answer, or status 0 when it failed at the socket. */
async function sendOne(send: SendStripe, eventId: string): Promise<Answered> {
  const sentAt = performance.now();
  try {
    const { status, elapsedMs } = await send(stripeEvent(eventId));
    return { eventId, status, elapsedMs, sentAt };
  } catch {
    return { eventId, status: 0, elapsedMs: Math.round(performance.now() - sentAt), sentAt };
  }
}

/**
 * Sends `ids` with at most `concurrency` requests in flight; `onSent(n)` after the n-th answer (to inject a fault
 * mid-burst). A request that fails at the socket counts as status 0.
 */
export async function sendBurst(
  send: SendStripe,
  ids: readonly string[],
  concurrency: number,
  onSent?: (count: number) => void,
): Promise<Answered[]> {
  const answers: Answered[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < ids.length) {
      answers.push(await sendOne(send, ids[next++]));
      onSent?.(answers.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, ids.length) }, worker));
  return answers;
}

/**
 * Sends `ids` at `perSecond` requests a second, as a provider does (each request starts on time, whatever the
 * earlier ones wait for); `onSent(n)` once the n-th request is sent.
 */
export async function sendPaced(
  send: SendStripe,
  ids: readonly string[],
  perSecond: number,
  onSent?: (count: number) => void,
): Promise<Answered[]> {
  const started = performance.now();
  const pending: Promise<Answered>[] = [];
  for (let n = 0; n < ids.length; n++) {
    const due = started + (n * 1000) / perSecond - performance.now();
    if (due > 0) await providerBackoff(due);
    pending.push(sendOne(send, ids[n]));
    onSent?.(n + 1);
  }
  return Promise.all(pending);
}

/** How long the stand-in provider waits before sending the unanswered events again. */
const PROVIDER_RETRY_MS = 500;

/** A provider's wait between sends: traffic paced on purpose, as in the benchmarks, not a test waiting for state. */
function providerBackoff(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** What the provider does: sends each event not yet answered 200 again, until it is or `deadline` passes. */
export async function retryUntilAccepted(
  send: SendStripe,
  answers: readonly Answered[],
  deadline: number,
): Promise<Answered[]> {
  const accepted = new Set(answers.filter((answer) => answer.status === 200).map((answer) => answer.eventId));
  let waiting = [...new Set(answers.map((answer) => answer.eventId))].filter((id) => !accepted.has(id));
  const retries: Answered[] = [];
  while (waiting.length > 0 && Date.now() < deadline) {
    const round = await sendBurst(send, waiting, 4);
    retries.push(...round);
    for (const answer of round) if (answer.status === 200) accepted.add(answer.eventId);
    waiting = waiting.filter((id) => !accepted.has(id));
    if (waiting.length > 0) await providerBackoff(PROVIDER_RETRY_MS);
  }
  return retries;
}

/**
 * The share of answers that are 503, the slowest 200, the statuses seen, and the span (first to last sent) of the
 * 503s: how long the gateway could not store.
 */
export function summarize(answers: readonly Answered[]): {
  offered: number;
  ok: number;
  unavailable: number;
  other: number;
  unavailableShare: number;
  slowestOkMs: number;
  unavailableSpanMs: number;
} {
  const ok = answers.filter((answer) => answer.status === 200);
  const refused = answers.filter((answer) => answer.status === 503);
  const unavailable = refused.length;
  const sent = refused.map((answer) => answer.sentAt ?? 0);
  return {
    unavailableSpanMs: unavailable === 0 ? 0 : Math.round(Math.max(...sent) - Math.min(...sent)),
    offered: answers.length,
    ok: ok.length,
    unavailable,
    other: answers.length - ok.length - unavailable,
    unavailableShare: answers.length === 0 ? 0 : unavailable / answers.length,
    slowestOkMs: Math.max(0, ...ok.map((answer) => answer.elapsedMs)),
  };
}

/** One line of the fault ledger. */
export interface LedgerRow {
  case: string;
  offered: number;
  accepted: number;
  appliedOnce: number;
  missing: number;
  twice: number;
}

/**
 * The ledger of one case: of the events `offered`, those answered 200 at least once (`accepted`) must each have an
 * inbox row with `processedAt` and exactly one "Webhook event processed" line of billing-sync (`processedCount`).
 */
export async function caseLedger(
  name: string,
  db: Db,
  offered: readonly string[],
  answers: readonly Answered[],
  processedCount: (eventId: string) => number,
): Promise<LedgerRow & { missingIds: string[]; twiceIds: string[] }> {
  const accepted = [...new Set(answers.filter((answer) => answer.status === 200).map((answer) => answer.eventId))];
  const rows = await db
    .collection<{ _id: string; processedAt?: Date | null }>('webhookEvents')
    .find({ _id: { $in: accepted.map((id) => `stripe:${id}`) } }, { projection: { processedAt: 1 } })
    .toArray();
  const processed = new Set(rows.filter((row) => row.processedAt).map((row) => row._id.slice('stripe:'.length)));
  const missingIds = accepted.filter((id) => !processed.has(id) || processedCount(id) === 0);
  const twiceIds = accepted.filter((id) => processedCount(id) > 1);
  return {
    case: name,
    offered: new Set(offered).size,
    accepted: accepted.length,
    appliedOnce: accepted.filter((id) => processed.has(id) && processedCount(id) === 1).length,
    missing: missingIds.length,
    twice: twiceIds.length,
    missingIds,
    twiceIds,
  };
}
