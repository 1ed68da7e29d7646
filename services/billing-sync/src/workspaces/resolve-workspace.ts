import type Stripe from 'stripe';
import type { Collection } from 'mongodb';
import type { Clock } from '@berth/contract';
import type { BerthLogger } from '@berth/logger';
import { callStripe } from '../stripe/call-stripe';
import type { BillingCollections, CustomerLinkDocument, WorkspaceDocument } from './collections';
import { findWorkspaceByCustomer, findWorkspaceById } from './find-workspace';

/** A workspace named by Stripe data does not exist here (yet): retried, in case identity-sync has not created it. */
export class WorkspaceNotFoundError extends Error {
  constructor(
    readonly workspaceId: string,
    readonly source: string,
  ) {
    super(`Workspace ${workspaceId} named by ${source} does not exist`);
    this.name = 'WorkspaceNotFoundError';
  }
}

/** Options for {@link resolveWorkspace}. */
export interface ResolveWorkspaceOptions {
  workspaces: Collection<WorkspaceDocument>;
  /** Stripe customer → workspace links, read by `_id`. */
  customers: Collection<CustomerLinkDocument>;
  /** Lookups by `_id` of both, group-committed. */
  reads: BillingCollections['reads'];
  stripe: Stripe;
  customerId: string;
  /** A checkout session's `client_reference_id`: links the customer to that workspace, replacing any other link. */
  checkoutWorkspaceId?: string | null;
  logger: BerthLogger;
  clock: Clock;
}

/** The workspace {@link resolveWorkspace} found, and whether the customer's link document already names it. */
export interface ResolvedWorkspace {
  workspace: WorkspaceDocument;
  /** True when found through the customer's link (so the sync need not write the link again). */
  linked: boolean;
}

/**
 * Finds the workspace a Stripe customer belongs to, in this order:
 * 1. a checkout session's `client_reference_id` (the app sets it to the workspace id when it opens Checkout);
 * 2. the workspace already linked to the customer (`billing.customerId`, found through the customer's link by `_id`);
 * 3. the customer's `metadata.workspaceId`, read from Stripe, unless that workspace is linked to another customer.
 * Null when the customer is linked to no workspace (or deleted): the caller logs "nothing to sync". A workspace id
 * that Stripe names but MongoDB lacks throws {@link WorkspaceNotFoundError} (retried, then set aside).
 */
export async function resolveWorkspace(options: ResolveWorkspaceOptions): Promise<ResolvedWorkspace | null> {
  const { workspaces, reads, stripe, customerId, logger } = options;
  if (options.checkoutWorkspaceId) {
    const workspace = await findWorkspaceById(reads.workspaces, options.checkoutWorkspaceId);
    if (!workspace)
      throw new WorkspaceNotFoundError(options.checkoutWorkspaceId, `checkout client_reference_id for ${customerId}`);
    return { workspace, linked: false };
  }
  const linked = await findWorkspaceByCustomer(
    { workspaces, customers: options.customers, reads, clock: options.clock },
    customerId,
  );
  if (linked) return { workspace: linked, linked: true };
  const customer = await callStripe(`customer ${customerId}`, () => stripe.customers.retrieve(customerId));
  if (customer.deleted) return null;
  const workspaceId = customer.metadata?.workspaceId;
  if (!workspaceId) return null;
  const workspace = await findWorkspaceById(reads.workspaces, workspaceId);
  if (!workspace) throw new WorkspaceNotFoundError(workspaceId, `metadata.workspaceId of ${customerId}`);
  if (workspace.billing?.customerId && workspace.billing.customerId !== customerId) {
    logger.warn(
      { customerId, workspaceId, linkedCustomerId: workspace.billing.customerId },
      'Customer names a workspace linked to another customer; not relinked',
    );
    return null;
  }
  return { workspace, linked: false };
}
