import type { BerthLogger } from '@berth/logger';
import type { OutboundCollections } from '../collections';
import type { EndpointDocument } from '../endpoints/endpoint-document';

/**
 * The dispatcher's copy of every endpoint, reloaded from MongoDB on a timer and whenever an endpoint change is
 * announced; the fan-out and the deliveries read it instead of MongoDB. The dispatcher's own changes (a 410, an
 * auto-disable) are applied to it at once with {@link EndpointRegistry.patch}.
 */
export class EndpointRegistry {
  private endpoints = new Map<string, EndpointDocument>();
  private byWorkspace = new Map<string, EndpointDocument[]>();
  private reloading: Promise<void> | undefined;
  private reloadAgain = false;

  constructor(
    private readonly options: {
      collections: Pick<OutboundCollections, 'endpoints'>;
      logger: BerthLogger;
      /** Called after each reload with every endpoint. */
      onReload?: (endpoints: readonly EndpointDocument[]) => Promise<void> | void;
    },
  ) {}

  /** One endpoint, or undefined when unknown. */
  get(endpointId: string): EndpointDocument | undefined {
    return this.endpoints.get(endpointId);
  }

  /** Every endpoint of a workspace. */
  ofWorkspace(workspaceId: string): readonly EndpointDocument[] {
    return this.byWorkspace.get(workspaceId) ?? [];
  }

  /** Every endpoint. */
  all(): readonly EndpointDocument[] {
    return [...this.endpoints.values()];
  }

  /** Applies a change this process made, until the next reload reads it back. */
  patch(endpointId: string, changes: Partial<EndpointDocument>): void {
    const current = this.endpoints.get(endpointId);
    if (!current) return;
    const updated = { ...current, ...changes };
    this.endpoints.set(endpointId, updated);
    this.byWorkspace.set(
      updated.workspaceId,
      (this.byWorkspace.get(updated.workspaceId) ?? []).map((endpoint) =>
        endpoint._id === endpointId ? updated : endpoint,
      ),
    );
  }

  /** Reloads every endpoint; calls made while a reload runs lead to one more reload after it. */
  async reload(): Promise<void> {
    if (this.reloading) {
      this.reloadAgain = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      try {
        do {
          this.reloadAgain = false;
          const endpoints = await this.options.collections.endpoints.find({}).toArray();
          this.endpoints = new Map(endpoints.map((endpoint) => [endpoint._id, endpoint]));
          const byWorkspace = new Map<string, EndpointDocument[]>();
          for (const endpoint of endpoints)
            byWorkspace.set(endpoint.workspaceId, [...(byWorkspace.get(endpoint.workspaceId) ?? []), endpoint]);
          this.byWorkspace = byWorkspace;
          await this.options.onReload?.(endpoints);
        } while (this.reloadAgain);
      } finally {
        this.reloading = undefined;
      }
    })();
    return this.reloading;
  }
}
