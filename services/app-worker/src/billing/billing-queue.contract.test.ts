import {
  APPLY_WORKSPACE_MEMBER_LIMIT_JOB,
  BILLING_QUEUE,
  queueApplyWorkspaceMemberLimit,
} from './billing-queue.contract';
import { ApplyWorkspaceMemberLimitJob } from './jobs/apply-workspace-member-limit.job';
import { processMethodsOf, processorOptionsOf } from '@berth/jobs';

describe('billing queue contract', () => {
  it('names the job and queue the worker runs', () => {
    expect(APPLY_WORKSPACE_MEMBER_LIMIT_JOB).toBe(ApplyWorkspaceMemberLimitJob.name);
    expect(processorOptionsOf(ApplyWorkspaceMemberLimitJob)).toEqual({ queueName: BILLING_QUEUE });
    expect(processMethodsOf(ApplyWorkspaceMemberLimitJob)).toEqual([
      { methodName: 'handle', jobName: APPLY_WORKSPACE_MEMBER_LIMIT_JOB },
    ]);
  });

  it('queues the job once per workspace (deduplicationId = workspaceId)', async () => {
    const add = jest.fn().mockResolvedValue({ id: 'j', deduplicated: false });
    await queueApplyWorkspaceMemberLimit({ add }, 'ws_1');
    expect(add).toHaveBeenCalledWith(
      'ApplyWorkspaceMemberLimitJob',
      { workspaceId: 'ws_1' },
      { deduplicationId: 'ws_1' },
    );
  });
});
