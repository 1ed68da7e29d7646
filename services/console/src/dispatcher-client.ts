import type { Clock } from '@berth/contract';
import type { EventTypeDefinition } from '@berth/outbound';
import { ConsoleError } from './errors';

/** What the console reads from the dispatcher's management API. */
export interface DispatcherClient {
  /** The event-type catalog (`GET /v1/event-types`). */
  eventTypes(): Promise<readonly EventTypeDefinition[]>;
  /** One type. @throws ConsoleError 404 for a type the catalog lacks */
  eventType(type: string): Promise<EventTypeDefinition>;
}

/**
 * A client of the dispatcher's `/v1/event-types`: the catalog is the dispatcher's (registered in code, served by
 * it), so the portal shows exactly the types that dispatcher knows. Kept for `cacheMs` (30 s): the list changes only
 * with a deploy.
 */
export function createDispatcherClient(options: {
  baseUrl: string;
  apiToken?: string;
  clock: Clock;
  cacheMs?: number;
  timeoutMs?: number;
}): DispatcherClient {
  let cached: { at: number; types: readonly EventTypeDefinition[] } | undefined;
  const cacheMs = options.cacheMs ?? 30_000;
  const eventTypes = async (): Promise<readonly EventTypeDefinition[]> => {
    const now = options.clock.now().getTime();
    if (cached && now - cached.at < cacheMs) return cached.types;
    let response: Response;
    try {
      response = await fetch(new URL('/v1/event-types', options.baseUrl), {
        headers: options.apiToken ? { authorization: `Bearer ${options.apiToken}` } : {},
        signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
      });
    } catch (error) {
      throw new ConsoleError(
        502,
        'dispatcher_unreachable',
        `the dispatcher's event-type catalog is unreachable: ${(error as Error).message}`,
      );
    }
    if (!response.ok)
      throw new ConsoleError(
        502,
        'dispatcher_error',
        `the dispatcher answered ${response.status} for its event-type catalog`,
      );
    const body = (await response.json()) as { data: EventTypeDefinition[] };
    cached = { at: now, types: body.data };
    return body.data;
  };
  return {
    eventTypes,
    async eventType(type) {
      const entry = (await eventTypes()).find((candidate) => candidate.type === type);
      if (!entry) throw new ConsoleError(404, 'not_found', `No event type ${type} in the catalog`);
      return entry;
    },
  };
}
