import type { ConsoleAction } from './console-action';
import { setIssueStatusAction } from './issue-actions';
import { cancelJobAction, promoteJobAction, replayDeadLettersAction, runCronNowAction } from './job-actions';
import { OUTBOUND_ACTIONS } from './outbound-actions';
import { redeliverAction, retryAbandonedAction } from './webhook-actions';

/** Every action, by name: the one list the action routes, the UI's buttons and the audit trail share. */
export const CONSOLE_ACTIONS: ReadonlyMap<string, ConsoleAction> = new Map(
  (
    [
      redeliverAction,
      retryAbandonedAction,
      replayDeadLettersAction,
      runCronNowAction,
      cancelJobAction,
      promoteJobAction,
      setIssueStatusAction,
      ...OUTBOUND_ACTIONS,
    ] as ConsoleAction[]
  ).map((action) => [action.name, action]),
);
