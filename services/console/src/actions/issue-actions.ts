import { z } from 'zod';
import { actorName } from '../auth/roles';
import { ConsoleError } from '../errors';
import { groupIssues } from '../issues/group-issues';
import { setIssueStatus, withIssueStates } from '../issues/issue-states';
import type { ConsoleDependencies } from '../dependencies';
import { defineAction } from './console-action';

const params = z
  .object({ issueId: z.string().min(1).max(2000), status: z.enum(['open', 'acknowledged', 'resolved']) })
  .strict();

/** The issue, as the Issues page lists it (any window up to 30 days); 404 when no failure of it is open. */
async function issueOf(dependencies: ConsoleDependencies, issueId: string) {
  const issues = await withIssueStates(dependencies.db, await groupIssues(dependencies, { days: 30 }));
  const issue = issues.find((candidate) => candidate.id === issueId);
  if (!issue) throw new ConsoleError(404, 'not_found', 'No such issue (its failures may have been recovered)');
  return issue;
}

const WORDS = { open: 'Reopens', acknowledged: 'Acknowledges', resolved: 'Resolves' } as const;

/**
 * `issues.set-status`: acknowledge an issue (someone is on it), resolve it (hidden until it fails again), or reopen
 * it. Changes what the console says about the issue only; the failures stay until recovered.
 */
export const setIssueStatusAction = defineAction({
  name: 'issues.set-status',
  audience: 'console',
  params,
  async preview(input, dependencies) {
    const issue = await issueOf(dependencies, input.issueId);
    return {
      count: issue.status === input.status ? 0 : 1,
      summary:
        issue.status === input.status
          ? `The issue is already ${input.status}`
          : `${WORDS[input.status]} the issue ${issue.scope}: ${issue.errorClass} (${issue.count} open failures)${input.status === 'resolved' ? '; it comes back if it fails again' : ''}`,
      items: [{ id: issue.id, status: issue.status, sample: issue.sample }],
    };
  },
  async execute(input, dependencies, actor) {
    const issue = await issueOf(dependencies, input.issueId);
    await setIssueStatus(dependencies.db, issue, input.status, actorName(actor), dependencies.clock.now());
    return {
      summary: `Issue ${issue.scope}: ${issue.errorClass} is ${input.status}`,
      result: { status: input.status },
    };
  },
});
