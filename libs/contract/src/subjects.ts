/**
 * The subject builders of every message Berth publishes or filters on, so a publisher and its consumers cannot
 * drift apart. Tokens are not checked here: the callers that take names from users validate them first
 * (`assertQueueName`, `assertWorkspaceId`…).
 */

/** Longest event type kept in a webhook subject; longer ones are cut (the full type travels in `Berth-Event-Type`). */
const MAX_TYPE_LENGTH = 200;
/** A type that is already a valid run of NATS subject tokens made of safe characters. */
const SAFE_TYPE = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;
/** Characters replaced inside a token: anything but letters, digits, `_` and `-` (so spaces, `*`, `>`, controls). */
const UNSAFE_CHARACTERS = /[^A-Za-z0-9_-]/g;

/**
 * Turns a provider's event type into NATS subject tokens. Dots are kept and are intended
 * (`customer.subscription.updated` stays three tokens, so consumers can filter on `webhooks.stripe.customer.>`);
 * wildcards, whitespace and other characters become `_`, and an empty token becomes `_`.
 */
export function eventTypeToSubjectTokens(type: string): string {
  if (type.length <= MAX_TYPE_LENGTH && SAFE_TYPE.test(type)) return type;
  return type
    .slice(0, MAX_TYPE_LENGTH)
    .split('.')
    .map((token) => token.replace(UNSAFE_CHARACTERS, '_') || '_')
    .join('.');
}

/** `webhooks.<provider>.<type tokens>`: the subject a verified webhook is stored on (by the gateway, or a requeue). */
export function webhookSubject(provider: string, type: string): string {
  return `webhooks.${provider}.${eventTypeToSubjectTokens(type)}`;
}

/** `webhooks.<provider>.>`: every event of one provider, the filter of its consumers. */
export function providerFilterSubject(provider: string): string {
  return `webhooks.${provider}.>`;
}

/** `webhooks.>`: every stored webhook. */
export const ALL_WEBHOOKS_SUBJECT = 'webhooks.>';

/** `jobs.<queue>.<name>`: where a job (a cron tick too) waits for a worker. */
export function jobSubject(queue: string, name: string): string {
  return `jobs.${queue}.${name}`;
}

/** Job priorities go from 1 (most urgent) to this; a job without one is served before any of them (as in BullMQ). */
export const PRIORITY_LEVELS = 10;

/**
 * `jobs._p<priority>.<queue>.<name>`: where a job with a priority waits, one band per priority. `_p…` can't be a
 * queue name (those don't start with `_`), so the band is outside the queue's `jobs.<queue>.>` and its consumer.
 */
export function priorityJobSubject(queue: string, priority: number, name: string): string {
  return `jobs._p${priority}.${queue}.${name}`;
}

/** The subject of a job: {@link priorityJobSubject} with a priority, {@link jobSubject} without. */
export function jobSubjectOf(queue: string, name: string, priority: number | undefined): string {
  return priority === undefined ? jobSubject(queue, name) : priorityJobSubject(queue, priority, name);
}

/** `jobs._p<priority>.<queue>.>`: one priority band of a queue, the filter of its band consumer. */
export function priorityFilterSubject(queue: string, priority: number): string {
  return `jobs._p${priority}.${queue}.>`;
}

/** `jobs.<queue>.>`: every job of a queue, the filter of its consumer. */
export function queueFilterSubject(queue: string): string {
  return `jobs.${queue}.>`;
}

/** `delayed-jobs.at.<queue>.<jobId>`: a delayed job, held as a one-shot message schedule until it is due. */
export function delayedJobSubject(queue: string, jobId: string): string {
  return `delayed-jobs.at.${queue}.${jobId}`;
}

/** `delayed-jobs.at.>`, or only one queue's delayed jobs. */
export function delayedJobsFilter(queue?: string): string {
  return queue ? `delayed-jobs.at.${queue}.>` : 'delayed-jobs.at.>';
}

/** `delayed-jobs.due.<queue>.<name>`: where the server puts a delayed job when it is due. */
export function dueJobSubject(queue: string, name: string): string {
  return `delayed-jobs.due.${queue}.${name}`;
}

/** `delayed-jobs.due.<queue>.>`: the due jobs of a queue, the filter of its consumer on `JOBS_DELAYED`. */
export function dueQueueFilterSubject(queue: string): string {
  return `delayed-jobs.due.${queue}.>`;
}

/** `completed-jobs.<queue>`: the record of a job of the queue that completed (the stream keeps the last few). */
export function completedJobSubject(queue: string): string {
  return `completed-jobs.${queue}`;
}

/** `dead.jobs.<queue>.<name>`: a job that failed for good. */
export function deadLetterSubject(queue: string, name: string): string {
  return `dead.${jobSubject(queue, name)}`;
}

/** `dead.jobs.>`, or only one queue's dead letters. */
export function deadLettersFilter(queue?: string): string {
  return queue ? `dead.jobs.${queue}.>` : 'dead.jobs.>';
}

/** `parked.<queue>.<base64url key>`: jobs of one concurrency key waiting for a slot, oldest first. */
export function parkedSubject(queue: string, encodedKey: string): string {
  return `parked.${queue}.${encodedKey}`;
}

/**
 * `fair.<queue>.<name>`: a queue's fair jobs of one job name, oldest first, each record naming its fair key (messages
 * of many keys' jobs, as `add` groups them).
 */
export function fairSubject(queue: string, name: string): string {
  return `fair.${queue}.${name}`;
}

/** `fair.<queue>.>`: every fair job of a queue. */
export function fairQueueFilter(queue: string): string {
  return `fair.${queue}.>`;
}

/** `parked.>`, or only one queue's parked jobs. */
export function parkedFilter(queue?: string): string {
  return queue ? `parked.${queue}.>` : 'parked.>';
}

/** `outbound.events.<workspaceId>`: an event sent by product code. */
export function outboundEventSubject(workspaceId: string): string {
  return `outbound.events.${workspaceId}`;
}

/** `outbound.events.>`: every outbound event, the fan-out's filter. */
export const ALL_OUTBOUND_EVENTS_SUBJECT = 'outbound.events.>';

/** `outbound.deliver.<endpointId>`: a delivery to an endpoint waits here; its endpoint's consumer reads only this. */
export function deliverySubject(endpointId: string): string {
  return `outbound.deliver.${endpointId}`;
}

/** `outbound.retry.<endpointId>.<deliveryId>`: a retry waiting as a message schedule; the server moves it when due. */
export function retrySubject(endpointId: string, deliveryId: string): string {
  return `outbound.retry.${endpointId}.${deliveryId}`;
}

/** Core NATS subject on which endpoint changes are announced, so every dispatcher replica reloads at once. */
export const ENDPOINT_CHANGED_SUBJECT = 'outbound.control.endpoint-changed';

/** `$KV.<bucket>.<key>`: the subject a KV entry is written on (for writes the KV client cannot make, e.g. with a TTL). */
export function kvKeySubject(bucket: string, key: string): string {
  return `$KV.${bucket}.${key}`;
}
