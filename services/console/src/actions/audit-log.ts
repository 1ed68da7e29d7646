import type { Clock } from '@berth/contract';
import { randomUUID } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import type { BerthLogger } from '@berth/logger';
import { actorName, type Actor } from '../auth/roles';

/** The collection of the console's audit trail (insert-only). */
export const CONSOLE_AUDIT_COLLECTION = 'consoleAudit';

/** One line of the audit trail: who did what, to what, and how it ended. */
export interface AuditEntry {
  _id: string;
  at: Date;
  actor: string;
  actorKind: Actor['kind'];
  role: string;
  action: string;
  params: Record<string, unknown>;
  outcome: 'previewed' | 'done' | 'failed' | 'refused';
  summary: string;
  workspaceId?: string;
}

/** Records every action (and every reveal of personal data) in the log and in {@link CONSOLE_AUDIT_COLLECTION}. */
export interface AuditLog {
  record(actor: Actor, entry: Pick<AuditEntry, 'action' | 'params' | 'outcome' | 'summary'>): Promise<void>;
  /** The latest entries, newest first (a portal actor sees only its workspace's). */
  latest(limit: number, workspaceId?: string): Promise<AuditEntry[]>;
}

/**
 * The audit trail: an info log line `Console action` (`actor`, `action`, `outcome`, `params`) for the log pipeline,
 * and an inserted document for the console's own Audit page. A failed insert is logged, never hidden: the log line
 * was written first.
 */
export function createAuditLog(db: Db, logger: BerthLogger, clock: Clock): AuditLog {
  const entries: Collection<AuditEntry> = db.collection<AuditEntry>(CONSOLE_AUDIT_COLLECTION);
  return {
    async record(actor, entry) {
      const document: AuditEntry = {
        _id: randomUUID(),
        at: clock.now(),
        actor: actorName(actor),
        actorKind: actor.kind,
        role: actor.kind === 'console' ? actor.role : 'portal',
        ...entry,
        ...(actor.kind === 'portal' ? { workspaceId: actor.workspaceId } : {}),
      };
      logger.info(
        {
          audit: true,
          actor: document.actor,
          role: document.role,
          action: entry.action,
          outcome: entry.outcome,
          params: entry.params,
        },
        `Console action ${entry.action} ${entry.outcome} by ${document.actor}: ${entry.summary}`,
      );
      try {
        await entries.insertOne(document);
      } catch (error) {
        logger.error(
          { err: error, action: entry.action },
          'Could not store the audit entry (the log line above is the record)',
        );
      }
    },
    async latest(limit, workspaceId) {
      const rows = await entries
        .find(workspaceId ? { workspaceId } : {})
        .sort({ at: -1 })
        .limit(limit)
        .toArray();
      return rows;
    },
  };
}
