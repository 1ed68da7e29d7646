import type { Document } from 'mongodb';

/** What {@link WrittenVersions} keeps of one write: the document as the write left it, and when it was sent. */
export interface WrittenVersion {
  /** The fields a next write compares: the version field and the guard's fields, as this write left them. */
  document: Document;
  /** `performance.now()` when the write was sent: the document was in this state at some moment after it. */
  sentAt: number;
}

/** How many documents a process remembers by default: the newest writes, about a megabyte. */
export const DEFAULT_WRITTEN_VERSIONS = 10_000;

/**
 * The last version one process wrote to each of its most recently written documents, so that its next write of the
 * same document can stand in the remembered state for a read (see `upsertIfNewer`). Bounded: past `maxEntries`, the
 * least recently written document is forgotten. Trust in an entry never comes from the entry alone: a write that uses
 * one still has to take the first lease of the remembered version, which fails if anybody moved the document on.
 */
export class WrittenVersions {
  private readonly entries = new Map<string, WrittenVersion>();

  constructor(private readonly maxEntries = DEFAULT_WRITTEN_VERSIONS) {}

  /** The remembered write of `key` if it was sent less than `maxAgeMs` ago; an older one is forgotten. */
  recall(key: string, maxAgeMs: number, now = performance.now()): WrittenVersion | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (now - entry.sentAt >= maxAgeMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /** Remembers a write that landed; a write sent earlier than the one remembered is ignored. */
  remember(key: string, entry: WrittenVersion): void {
    const known = this.entries.get(key);
    if (known && known.sentAt > entry.sentAt) return;
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  /** How many documents are remembered. */
  get size(): number {
    return this.entries.size;
  }
}
