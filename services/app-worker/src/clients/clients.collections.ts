import type { Collection, Db } from 'mongodb';

/** A workspace (collection `workspaces`); `_id` is the workspace id. */
export interface WorkspaceDocument {
  _id: string;
  name: string;
  deletedAt?: Date | null;
}

/** A client of a workspace (collection `clients`). */
export interface ClientDocument {
  _id: string;
  workspaceId: string;
  name: string;
  createdAt: Date;
  deletedAt?: Date | null;
}

/**
 * One weekly summary (collection `clientSummaries`): `_id` is `<workspaceId>:<week>`, and `{workspaceId, week}` is
 * a unique index, so a second run for the same week changes nothing.
 */
export interface ClientSummaryDocument {
  _id: string;
  workspaceId: string;
  /** ISO week, `2026-W49`. */
  week: string;
  clientCount: number;
  /** Clients created in the 7 days before the summary. */
  newClientCount: number;
  createdAt: Date;
}

/** The collections of the Clients feature. */
export interface ClientsCollections {
  workspaces: Collection<WorkspaceDocument>;
  clients: Collection<ClientDocument>;
  summaries: Collection<ClientSummaryDocument>;
}

/** The Clients collections of a database. */
export function clientsCollections(db: Db): ClientsCollections {
  return {
    workspaces: db.collection<WorkspaceDocument>('workspaces'),
    clients: db.collection<ClientDocument>('clients'),
    summaries: db.collection<ClientSummaryDocument>('clientSummaries'),
  };
}
