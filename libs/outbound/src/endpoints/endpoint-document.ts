/** One signing secret of an endpoint; during a rotation the old one keeps signing until `expiresAt`. */
export interface EndpointSecret {
  /** `whsec_…` (base64 of the key), as Standard Webhooks libraries take it. */
  secret: string;
  createdAt: Date;
  /** Unset while current; set by a rotation to the end of the overlap. */
  expiresAt?: Date | null;
}

/** Why an endpoint is disabled. */
export type DisabledReason = 'manual' | 'gone' | 'failing';

/** A customer's endpoint, in `outboundEndpoints`. */
export interface EndpointDocument {
  /** `ep_…` */
  _id: string;
  workspaceId: string;
  url: string;
  description: string;
  /** Event types delivered; empty means every type. */
  eventTypes: string[];
  /** Newest first. */
  secrets: EndpointSecret[];
  /** Most deliveries a second; null for no limit. Enforced when sending, per endpoint. */
  rateLimitPerSecond: number | null;
  /** Deliveries in send order, one at a time: a failing head holds back the rest of this endpoint. */
  ordered: boolean;
  disabledAt: Date | null;
  disabledReason: DisabledReason | null;
  /** Start of the current run of failed attempts; null after any success. */
  failingSince: Date | null;
  /** When the failing-for-days alert was raised for the current disable. */
  autoDisableAlertedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** An endpoint as the API and CLI show it: secrets are not included (see the rotate and create answers). */
export interface EndpointView {
  id: string;
  workspaceId: string;
  url: string;
  description: string;
  eventTypes: string[];
  rateLimitPerSecond: number | null;
  ordered: boolean;
  enabled: boolean;
  disabledAt: string | null;
  disabledReason: DisabledReason | null;
  failingSince: string | null;
  /** How many secrets sign now (2 during a rotation's overlap). */
  activeSecrets: number;
  createdAt: string;
  updatedAt: string;
}

/** The secrets that sign a delivery at `now`: the current one and any still inside its overlap. */
export function activeSecrets(endpoint: Pick<EndpointDocument, 'secrets'>, now: Date): string[] {
  return endpoint.secrets
    .filter((entry) => !entry.expiresAt || entry.expiresAt.getTime() > now.getTime())
    .map((entry) => entry.secret);
}

/** True when the endpoint takes events of `eventType`. */
export function subscribesTo(endpoint: Pick<EndpointDocument, 'eventTypes'>, eventType: string): boolean {
  return (
    endpoint.eventTypes.length === 0 || endpoint.eventTypes.includes('*') || endpoint.eventTypes.includes(eventType)
  );
}

/** The public view of an endpoint at `now`. */
export function toEndpointView(endpoint: EndpointDocument, now: Date): EndpointView {
  return {
    id: endpoint._id,
    workspaceId: endpoint.workspaceId,
    url: endpoint.url,
    description: endpoint.description,
    eventTypes: endpoint.eventTypes,
    rateLimitPerSecond: endpoint.rateLimitPerSecond,
    ordered: endpoint.ordered,
    enabled: endpoint.disabledAt === null,
    disabledAt: endpoint.disabledAt?.toISOString() ?? null,
    disabledReason: endpoint.disabledReason,
    failingSince: endpoint.failingSince?.toISOString() ?? null,
    activeSecrets: activeSecrets(endpoint, now).length,
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
  };
}
