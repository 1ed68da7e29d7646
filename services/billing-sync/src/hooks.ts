/**
 * What billing-sync tells the rest of Berth. `runBillingSync` plugs the jobs API in here ({@link memberLimitHooks}
 * in `member-limit-hooks.ts`) to queue `ApplyWorkspaceMemberLimitJob` after a subscription change (with a
 * `deduplicationId` of the workspace id).
 */
export interface BillingSyncHooks {
  /**
   * Called after a workspace's subscriptions were written, inside the event's handling: if it throws, the event is
   * retried (the sync, then the hook, run again), so it must be safe to call twice.
   */
  onSubscriptionChanged(workspaceId: string): Promise<void>;
}

/** The default hooks: do nothing. */
export const noopBillingSyncHooks: BillingSyncHooks = {
  async onSubscriptionChanged(): Promise<void> {},
};
