import { z } from 'zod';
import { inboxEventKey, redeliverWebhookEvent, retryAbandonedWebhookEvents } from '@berth/inbox';
import { actorName, type Actor } from '../auth/roles';
import type { ConsoleDependencies } from '../dependencies';
import { defineAction } from './console-action';

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

/** `webhooks.redeliver`: publish one stored event again now (a set-aside one gets its attempts back). */
export const redeliverAction = defineAction({
  name: 'webhooks.redeliver',
  audience: 'console',
  params: eventRef,
  async preview(params, dependencies) {
    const [row] = await unprocessedOf(dependencies, [params]);
    return row
      ? {
          count: 1,
          summary: `Publishes ${row._id} again now${row.abandonedAt ? ', giving it its attempts back (it is set aside)' : ''}`,
          items: [{ id: row._id, type: row.type, attempts: row.attempts, lastError: row.lastError }],
        }
      : {
          count: 0,
          summary: `Nothing to redeliver: ${inboxEventKey(params.provider, params.eventId)} is unknown or already processed`,
          items: [],
        };
  },
  async execute(params, dependencies, actor) {
    const result = await redeliverWebhookEvent({
      inbox: dependencies.inbox,
      messaging: dependencies.messaging,
      provider: params.provider,
      eventId: params.eventId,
      owner: ownerOf(actor, 'redeliver'),
      clock: dependencies.clock,
    });
    return { summary: `${inboxEventKey(params.provider, params.eventId)}: ${result.status}`, result };
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
        summary: `Publishes ${rows.length} selected unprocessed event(s) again, reopening those set aside`,
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
      summary: `Reopens ${count} set-aside event(s)${params.provider ? ` of ${params.provider}` : ' of every provider'} and publishes them again`,
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
        summary: `Published ${redelivered} of ${results.length} selected event(s) again`,
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
      summary: `Reopened ${result.reopened} set-aside event(s), ${result.requeued} published again, ${result.busy} busy, ${result.publishFailed} not published`,
      result,
    };
  },
});
