import { z } from 'zod';
import {
  inboxEventKey,
  redeliverWebhookEvent,
  resendProcessedWebhookEvent,
  retryAbandonedWebhookEvents,
} from '@berth/inbox';
import { actorName, type Actor } from '../auth/roles';
import type { ConsoleDependencies } from '../dependencies';
import { counted, defineAction } from './console-action';

const eventRef = z.object({ provider: z.string().min(1).max(64), eventId: z.string().min(1).max(256) }).strict();

/** The lease owner id of an operation run from the console, naming who ran it. */
function ownerOf(actor: Actor, operation: string): string {
  return `berth-console:${operation}:${actorName(actor)}`;
}

/** Reads the listed events by `_id` and keeps those not processed. */
async function unprocessedOf(dependencies: ConsoleDependencies, events: z.infer<typeof eventRef>[]) {
  const rows = await Promise.all(
    events.map((ref) =>
      dependencies.inbox.events.findOne(
        { _id: inboxEventKey(ref.provider, ref.eventId) },
        { projection: { payload: 0 } },
      ),
    ),
  );
  return rows.filter((row): row is NonNullable<typeof row> => row !== null && row.processedAt === null);
}

/**
 * `webhooks.redeliver`: publish one stored event again now. A set-aside one gets its attempts back; a processed one
 * is sent to its handler once more (`resendProcessedWebhookEvent`: what a team does after fixing a handler).
 */
export const redeliverAction = defineAction({
  name: 'webhooks.redeliver',
  audience: 'console',
  params: eventRef,
  async preview(params, dependencies) {
    const key = inboxEventKey(params.provider, params.eventId);
    const row = await dependencies.inbox.events.findOne({ _id: key }, { projection: { payload: 0 } });
    if (!row) return { count: 0, summary: `Nothing to redeliver: ${key} is not in the inbox`, items: [] };
    const item = { id: row._id, type: row.type, attempts: row.attempts, lastError: row.lastError };
    if (row.processedAt)
      return {
        count: 1,
        summary: `Sends ${key} to its handler once more: it was processed at ${row.processedAt.toISOString()}, and gets a fresh round of attempts`,
        items: [{ ...item, processedAt: row.processedAt }],
      };
    return {
      count: 1,
      summary: `Publishes ${key} again now${row.abandonedAt ? ', giving it its attempts back (it is set aside)' : ''}`,
      items: [item],
    };
  },
  async execute(params, dependencies, actor) {
    const key = inboxEventKey(params.provider, params.eventId);
    const options = {
      inbox: dependencies.inbox,
      messaging: dependencies.messaging,
      provider: params.provider,
      eventId: params.eventId,
      clock: dependencies.clock,
    };
    const result = await redeliverWebhookEvent({ ...options, owner: ownerOf(actor, 'redeliver') });
    if (result.status !== 'processed') return { summary: `${key}: ${result.status}`, result };
    const resent = await resendProcessedWebhookEvent({ ...options, owner: ownerOf(actor, 'resend-processed') });
    return {
      summary:
        resent.status === 'resent'
          ? `${key}: sent to its handler again (it had been processed at ${resent.processedAt.toISOString()})`
          : `${key}: ${resent.status}`,
      result: resent,
    };
  },
});

const retryParams = z.union([
  z.object({ events: z.array(eventRef).min(1).max(500) }).strict(),
  z.object({ provider: z.string().min(1).max(64).optional(), all: z.literal(true) }).strict(),
]);

/**
 * `webhooks.retry-abandoned`: give set-aside events their attempts back and publish them again: a selection (each
 * redelivered, which reopens it) or all of them, of one provider or of every provider.
 */
export const retryAbandonedAction = defineAction({
  name: 'webhooks.retry-abandoned',
  audience: 'console',
  params: retryParams,
  async preview(params, dependencies) {
    if ('events' in params) {
      const rows = await unprocessedOf(dependencies, params.events);
      return {
        count: rows.length,
        summary: `Publishes ${counted(rows.length, 'selected unprocessed event')} again, reopening those set aside`,
        items: rows
          .slice(0, 20)
          .map((row) => ({ id: row._id, attempts: row.attempts, setAside: row.abandonedAt !== null })),
      };
    }
    const filter = {
      abandonedAt: { $ne: null },
      processedAt: null,
      ...(params.provider ? { provider: params.provider } : {}),
    };
    const [count, sample] = await Promise.all([
      dependencies.inbox.events.countDocuments(filter),
      dependencies.inbox.events
        .find(filter, { projection: { _id: 1, type: 1, lastError: 1 } })
        .limit(20)
        .toArray(),
    ]);
    return {
      count,
      summary: `Reopens ${counted(count, 'set-aside event')}${params.provider ? ` of ${params.provider}` : ' of every provider'} and publishes them again`,
      items: sample.map((row) => ({ id: row._id, type: row.type, lastError: row.lastError })),
    };
  },
  async execute(params, dependencies, actor) {
    if ('events' in params) {
      const results = [];
      for (const ref of params.events) {
        const result = await redeliverWebhookEvent({
          inbox: dependencies.inbox,
          messaging: dependencies.messaging,
          ...ref,
          owner: ownerOf(actor, 'retry-selection'),
          clock: dependencies.clock,
        });
        results.push({ id: inboxEventKey(ref.provider, ref.eventId), status: result.status });
      }
      const redelivered = results.filter((result) => result.status === 'redelivered').length;
      return {
        summary: `Published ${redelivered} of ${counted(results.length, 'selected event')} again`,
        result: { redelivered, results },
      };
    }
    const result = await retryAbandonedWebhookEvents({
      inbox: dependencies.inbox,
      messaging: dependencies.messaging,
      provider: params.provider,
      owner: ownerOf(actor, 'retry-abandoned'),
      logger: dependencies.logger,
      clock: dependencies.clock,
    });
    return {
      summary: `Reopened ${counted(result.reopened, 'set-aside event')}, ${result.requeued} published again, ${result.busy} busy, ${result.publishFailed} not published`,
      result,
    };
  },
});
