import type { AddedJob } from '@berth/jobs';
import type { BerthLogger } from '@berth/logger';
import type { BillingSyncHooks } from './hooks';

/**
 * The queue and name of app-worker's `ApplyWorkspaceMemberLimitJob`. Services don't import each other, so they are
 * spelled here; `test/jobs/billing-member-limit.test.ts` checks them against the worker's class and contract.
 */
export const BILLING_QUEUE = 'billing-queue';
export const APPLY_WORKSPACE_MEMBER_LIMIT_JOB = 'ApplyWorkspaceMemberLimitJob';

/** Anything with the `add` of `createJobProducer` (`@berth/jobs`). */
export interface JobProducer {
  add(queue: string, name: string, data: unknown, options?: { deduplicationId?: string }): Promise<AddedJob>;
}

/**
 * The hooks billing-sync runs with: after a workspace's subscriptions were synced, queue
 * `ApplyWorkspaceMemberLimitJob { workspaceId }` on `billing-queue` with `deduplicationId: workspaceId`. While one
 * waits, runs or retries for the workspace, another change queues nothing more: the job reads the subscriptions
 * when it runs, so one run covers every change before it. If queueing fails, the hook throws and the event is
 * retried (sync and hook again; both are safe to repeat).
 */
export function memberLimitHooks(producer: JobProducer, logger: BerthLogger): BillingSyncHooks {
  return {
    async onSubscriptionChanged(workspaceId: string): Promise<void> {
      const added = await producer.add(
        BILLING_QUEUE,
        APPLY_WORKSPACE_MEMBER_LIMIT_JOB,
        { workspaceId },
        { deduplicationId: workspaceId },
      );
      logger.info(
        { workspaceId, jobId: added.id, deduplicated: added.deduplicated },
        added.deduplicated
          ? `${APPLY_WORKSPACE_MEMBER_LIMIT_JOB} already queued for this workspace`
          : `${APPLY_WORKSPACE_MEMBER_LIMIT_JOB} queued`,
      );
    },
  };
}
