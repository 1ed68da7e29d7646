import { listDeadLetters } from '@berth/jobs';
import { listDeliveries, listEndpoints, type DeliveryView } from '@berth/outbound';
import type { ConsoleDependencies } from '../dependencies';
import { errorClassOf, errorShape } from './error-shape';

/** What an issue's bulk action runs, with the parameters the console's action routes take. */
export interface IssueAction {
  action: 'webhooks.retry-abandoned' | 'jobs.replay-dead' | 'outbound.replay';
  label: string;
  params: Record<string, unknown>;
}

/** Failures of one cause: the same error class and message shape, of the same provider, queue or endpoint. */
export interface Issue {
  id: string;
  source: 'webhooks' | 'jobs' | 'outbound';
  /** The provider, queue or endpoint. */
  scope: string;
  errorClass: string;
  shape: string;
  /** One full message, as it was. */
  sample: string;
  count: number;
  firstSeen: Date;
  lastSeen: Date;
  /** A few affected items (event keys, dead-letter ids, delivery ids). */
  examples: string[];
  /** Counts by state (`retrying`, `set-aside`; `exhausted`, `unrecoverable`; `failed`). */
  states: Record<string, number>;
  action: IssueAction;
}

interface Occurrence {
  source: Issue['source'];
  scope: string;
  errorClass: string;
  message: string;
  /** The failure as recorded, for the sample. */
  error: string;
  /** When it last failed. */
  at: Date;
  /** When it first failed: its first failed attempt, which a retry or replay does not move. */
  firstAt: Date;
  item: string;
  state: string;
  ref: unknown;
}

/** Rows read per source at most. */
const MAX_PER_SOURCE = 5000;

/**
 * Groups every open failure by cause, as Hookdeck's issues do: unprocessed webhook events with an error (retrying
 * or set aside), dead-lettered jobs, and outbound deliveries that failed in the last `days`. Largest issue first.
 */
export async function groupIssues(
  dependencies: ConsoleDependencies,
  options: { days?: number } = {},
): Promise<Issue[]> {
  const since = new Date(dependencies.clock.now().getTime() - (options.days ?? 7) * 24 * 60 * 60 * 1000);
  const [events, letters, deliveries, endpoints] = await Promise.all([
    dependencies.inbox.events
      .find({ processedAt: null, lastError: { $ne: null } }, { projection: { payload: 0 } })
      .limit(MAX_PER_SOURCE)
      .toArray(),
    listDeadLetters(dependencies.messaging, { limit: MAX_PER_SOURCE }),
    listDeliveries({ collections: dependencies.outbound }, { status: 'failed', since, limit: MAX_PER_SOURCE }),
    listEndpoints({ collections: dependencies.outbound }),
  ]);
  const urls = new Map(endpoints.map((endpoint) => [endpoint._id, endpoint.url]));
  const occurrences: Occurrence[] = [
    ...events.map((row) => ({
      source: 'webhooks' as const,
      scope: row.provider,
      ...errorClassOf(row.lastError ?? ''),
      error: row.lastError ?? '',
      at: row.lastAttemptAt ?? row.receivedAt,
      firstAt: row.attemptErrors?.[0]?.at ?? row.lastAttemptAt ?? row.receivedAt,
      item: row._id,
      state: row.abandonedAt ? 'set-aside' : 'retrying',
      ref: { provider: row.provider, eventId: row.eventId },
    })),
    ...letters.map((letter) => ({
      source: 'jobs' as const,
      scope: `${letter.queue} / ${letter.name}`,
      errorClass: letter.error.name,
      message: letter.error.message,
      error: `${letter.error.name}: ${letter.error.message}`,
      at: new Date(letter.failedAt),
      firstAt: new Date(letter.failedAt),
      item: String(letter.id),
      state: letter.reason,
      ref: letter.id,
    })),
    ...deliveries.map((view) => deliveryOccurrence(view, urls.get(view.endpointId))),
  ];
  const groups = new Map<string, { issue: Omit<Issue, 'action'>; refs: unknown[] }>();
  for (const occurrence of occurrences) {
    const { errorClass } = occurrence;
    const shape = errorShape(occurrence.message);
    const id = `${occurrence.source}|${occurrence.scope}|${errorClass}|${shape}`;
    let group = groups.get(id);
    if (!group) {
      group = {
        issue: {
          id,
          source: occurrence.source,
          scope: occurrence.scope,
          errorClass,
          shape,
          sample: occurrence.error,
          count: 0,
          firstSeen: occurrence.firstAt,
          lastSeen: occurrence.at,
          examples: [],
          states: {},
        },
        refs: [],
      };
      groups.set(id, group);
    }
    const { issue } = group;
    issue.count += 1;
    if (occurrence.firstAt < issue.firstSeen) issue.firstSeen = occurrence.firstAt;
    if (occurrence.at > issue.lastSeen) issue.lastSeen = occurrence.at;
    if (issue.examples.length < 5) issue.examples.push(occurrence.item);
    issue.states[occurrence.state] = (issue.states[occurrence.state] ?? 0) + 1;
    if (group.refs.length < 500) group.refs.push(occurrence.ref);
  }
  return [...groups.values()]
    .map(({ issue, refs }) => ({ ...issue, action: actionOf(issue.source, refs) }))
    .sort((a, b) => b.count - a.count || b.lastSeen.getTime() - a.lastSeen.getTime());
}

/** A failed delivery as an occurrence: the class is the answer (`HTTP 500`) or how it failed; the message, what the endpoint said. */
function deliveryOccurrence(view: DeliveryView, url: string | undefined): Occurrence {
  const last = [...view.log].reverse().find((entry) => entry.kind === 'attempt');
  const first = view.log.find((entry) => entry.kind === 'attempt');
  const errorClass = last?.statusCode
    ? `HTTP ${last.statusCode}`
    : last?.outcome === 'refused'
      ? 'Refused'
      : 'No answer';
  const message = (last?.responseBody ?? last?.error ?? '').slice(0, 300);
  return {
    source: 'outbound',
    scope: url ? `${url} (${view.endpointId})` : view.endpointId,
    errorClass,
    message,
    error: [errorClass, last?.error, last?.responseBody].filter(Boolean).join(': '),
    at: new Date(last?.at ?? view.createdAt),
    firstAt: new Date(first?.at ?? view.createdAt),
    item: view.id,
    state: 'failed',
    ref: view.id,
  };
}

function actionOf(source: Issue['source'], refs: unknown[]): IssueAction {
  switch (source) {
    case 'webhooks':
      return {
        action: 'webhooks.retry-abandoned',
        label: refs.length === 1 ? 'Retry this event' : `Retry these ${refs.length} events`,
        params: { events: refs },
      };
    case 'jobs':
      return {
        action: 'jobs.replay-dead',
        label: refs.length === 1 ? 'Replay this job' : `Replay these ${refs.length} jobs`,
        params: { ids: refs },
      };
    case 'outbound':
      return {
        action: 'outbound.replay',
        label: refs.length === 1 ? 'Replay this delivery' : `Replay these ${refs.length} deliveries`,
        params: { deliveryIds: refs },
      };
  }
}
