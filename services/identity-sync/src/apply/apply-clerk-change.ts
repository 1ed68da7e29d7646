import type { UpsertIfNewerResult } from '@berth/store';
import type { ClerkSyncedFields } from '../collections';
import { writeClerkVersion, type ClerkDocumentTarget } from './clerk-versioned-write';

/** Options for {@link applyClerkChange}. */
export interface ApplyClerkChangeOptions<T extends ClerkSyncedFields> extends ClerkDocumentTarget<T> {
  /** Clerk's `updated_at` of this change. */
  updatedAt: Date;
  /** The fields the change sets. */
  fields: Record<string, unknown>;
}

/**
 * Applies a created/updated change if it is newer than what is stored (`clerkUpdatedAt`) and the document is not
 * deleted, by one guarded upsert (see `writeClerkVersion`), so two changes of one document applied at once by
 * different events still leave the newer. An older or equal change, or any change to a deleted
 * document, writes nothing: `stale`. Other fields of the document (a workspace's `billing`) are never touched.
 */
export function applyClerkChange<T extends ClerkSyncedFields>(
  options: ApplyClerkChangeOptions<T>,
): Promise<UpsertIfNewerResult> {
  return writeClerkVersion(options, {
    version: options.updatedAt,
    set: { ...options.fields, clerkSyncedAt: options.clock.now() },
  });
}
