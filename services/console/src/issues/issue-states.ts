import type { Collection, Db } from 'mongodb';
import type { Issue } from './group-issues';

/** The collection of what operators said about issues, and the first time the console saw each. */
export const CONSOLE_ISSUES_COLLECTION = 'consoleIssues';

/** What an operator said about an issue: `open` (the default), `acknowledged` (someone is on it), `resolved`. */
export type IssueStatus = 'open' | 'acknowledged' | 'resolved';

/** One issue's remembered state, keyed by the issue's id (source, scope, error class, message shape). */
export interface IssueStateDocument {
  _id: string;
  /** The earliest occurrence the console has seen: a replay, which moves the failures' own times, leaves it. */
  firstSeen: Date;
  status: IssueStatus;
  /** Who set the status, and when (null while nobody has). */
  statusBy: string | null;
  statusAt: Date | null;
}

/** An issue with its remembered state. */
export interface IssueWithState extends Issue {
  status: IssueStatus;
  statusBy: string | null;
  statusAt: Date | null;
  /** Resolved before, and failing again since. */
  reopened: boolean;
}

export function issueStates(db: Db): Collection<IssueStateDocument> {
  return db.collection<IssueStateDocument>(CONSOLE_ISSUES_COLLECTION);
}

/**
 * Joins the issues with what is remembered of them: the first time seen is the earliest ever (written when an issue
 * is new, or an older occurrence turns up), and the status an operator set. A resolved issue that failed again
 * after it was resolved is open again (`reopened`), as Hookdeck reopens one. Reads and writes by `_id` only.
 */
export async function withIssueStates(db: Db, issues: readonly Issue[]): Promise<IssueWithState[]> {
  const states = issueStates(db);
  const stored = await Promise.all(issues.map((issue) => states.findOne({ _id: issue.id })));
  return Promise.all(
    issues.map(async (issue, index) => {
      const state = stored[index];
      if (!state || issue.firstSeen.getTime() < state.firstSeen.getTime())
        await states.updateOne(
          { _id: issue.id },
          {
            $set: { firstSeen: issue.firstSeen },
            $setOnInsert: { status: 'open' as const, statusBy: null, statusAt: null },
          },
          { upsert: true },
        );
      const firstSeen = state && state.firstSeen < issue.firstSeen ? state.firstSeen : issue.firstSeen;
      const reopened =
        state?.status === 'resolved' && state.statusAt !== null && issue.lastSeen.getTime() > state.statusAt.getTime();
      return {
        ...issue,
        firstSeen,
        status: reopened ? 'open' : (state?.status ?? 'open'),
        statusBy: state?.statusBy ?? null,
        statusAt: state?.statusAt ?? null,
        reopened,
      };
    }),
  );
}

/** Sets an issue's status, remembering who and when. */
export async function setIssueStatus(db: Db, issue: Issue, status: IssueStatus, by: string, at: Date): Promise<void> {
  await issueStates(db).updateOne(
    { _id: issue.id },
    { $set: { status, statusBy: by, statusAt: at }, $setOnInsert: { firstSeen: issue.firstSeen } },
    { upsert: true },
  );
}
