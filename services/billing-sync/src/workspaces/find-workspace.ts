import { ObjectId, type Collection, type Filter } from 'mongodb';
import type { WorkspaceDocument } from './collections';

/** The `_id` filter for a workspace id that may be stored as a string or, for hex ids, an ObjectId. */
export function workspaceIdFilter(id: string): Filter<WorkspaceDocument> {
  const candidates: (string | ObjectId)[] = [id];
  if (/^[0-9a-f]{24}$/i.test(id)) candidates.push(new ObjectId(id));
  return { _id: { $in: candidates } };
}

/** The workspace with this id, or null. */
export async function findWorkspaceById(workspaces: Collection<WorkspaceDocument>, id: string): Promise<WorkspaceDocument | null> {
  return workspaces.findOne(workspaceIdFilter(id));
}

/** The workspace already linked to this Stripe customer (`billing.customerId`), or null. */
export async function findWorkspaceByCustomer(workspaces: Collection<WorkspaceDocument>, customerId: string): Promise<WorkspaceDocument | null> {
  return workspaces.findOne({ 'billing.customerId': customerId });
}
