/**
 * The billing jobs' contract: queue, job name, data, and the billing state they read. billing-sync queues
 * `ApplyWorkspaceMemberLimitJob` on `billing-queue` with `deduplicationId: workspaceId` after a subscription change
 * (services don't import each other, so it spells the name; a test here keeps the two in step).
 */

/** The queue of billing jobs. */
export const BILLING_QUEUE = 'billing-queue';

/** `ApplyWorkspaceMemberLimitJob.name` (a test checks they match). */
export const APPLY_WORKSPACE_MEMBER_LIMIT_JOB = 'ApplyWorkspaceMemberLimitJob';

/** The data of `ApplyWorkspaceMemberLimitJob`: which workspace (the job reads its current state itself). */
export type ApplyWorkspaceMemberLimitJobData = { workspaceId: string };

/** Anything with the `add` of a `MessageQueueService` (the real one, or a test double). */
export interface JobAdder {
  add<T>(name: string, data: T, options?: { deduplicationId?: string }): Promise<unknown>;
}

/**
 * Queues the member-limit job of a workspace, once: while one waits, runs or retries for this workspace,
 * asking again does nothing (the job reads the current subscriptions when it runs, so one run is enough).
 */
export async function queueApplyWorkspaceMemberLimit(billingQueue: JobAdder, workspaceId: string): Promise<void> {
  await billingQueue.add<ApplyWorkspaceMemberLimitJobData>(
    APPLY_WORKSPACE_MEMBER_LIMIT_JOB,
    { workspaceId },
    { deduplicationId: workspaceId },
  );
}

/** A subscription as billing-sync stores it under `workspaces.billing.subscriptions` (its `SubscriptionSummary`). */
export interface WorkspaceSubscription {
  id: string;
  /** Stripe's status: `active`, `trialing`, `past_due`, `canceled`, `unpaid`, `incomplete`… */
  status: string;
  /** Subscription items; a raw Stripe list (`{ data: [...] }`) is accepted too. */
  items: WorkspaceSubscriptionItem[] | { data: WorkspaceSubscriptionItem[] };
}

/** One subscription item: a price and how many seats of it. */
export interface WorkspaceSubscriptionItem {
  priceId?: string;
  /** Seats; Stripe leaves it out for metered prices (counted as 1). */
  quantity?: number | null;
}

/** `workspaces.billing`, written by billing-sync (the fields the member limit reads). */
export interface WorkspaceBillingState {
  customerId?: string;
  subscriptions: WorkspaceSubscription[];
  syncedAt?: Date;
}
