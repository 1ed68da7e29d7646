import type { RateLimit } from '../../flow/rate-window';
import { parsePartitionJson, type PartitionCodec } from './kv-group-commit';

/**
 * Starts recorded in one write: the server's time of that write (0 in the write itself: "this write"), how many,
 * and how long after the write they may still begin (0 for a start taken by its job at once; a block of starts
 * reserved by a worker may be used until `holdMs` after the write).
 */
export type StartGroup = [at: number, count: number, holdMs: number];

/** One key's sliding log: its groups of starts still in the window, the window, the next time told to a refused job. */
export interface KeyWindow {
  groups: StartGroup[];
  perMs: number;
  nextReserved: number;
}

/** A partition entry of `berth_job_rates`: the windows of its keys (base64url), left out once empty. */
export interface RatePartition {
  keys: Record<string, KeyWindow>;
}

/** What a worker asks for: up to `starts` starts, to be used within `holdMs` of the write. */
export interface StartRequest {
  starts: number;
  holdMs: number;
}

/** What {@link takeStarts} decided: starts granted (at least one) and how long they may be used, or when to come back. */
export type StartGrant = { allowed: true; starts: number; holdMs: number } | { allowed: false; retryAt: number };

/** The latest time a group's starts may begin: its write's time plus its hold. */
function lastStartOf([at, , holdMs]: StartGroup, now: number): number {
  return (at || now) + holdMs;
}

/** The window's groups still in it at `now`: those whose last possible start is less than `perMs` ago. */
function groupsIn(window: KeyWindow, now: number): StartGroup[] {
  return window.groups.filter((group) => lastStartOf(group, now) > now - window.perMs);
}

function countOf(groups: readonly StartGroup[]): number {
  return groups.reduce((sum, [, count]) => sum + count, 0);
}

/** Drops the groups that left the window by `now` and counts the starts still in it. */
function startsStillIn(window: KeyWindow, limit: RateLimit, now: number): number {
  window.perMs = limit.perMs;
  window.groups = groupsIn(window, now);
  return countOf(window.groups);
}

/** The most starts a block may take: the key stays at most half full with it (0 when it is already). */
function blockRoom(used: number, limit: RateLimit): number {
  return Math.max(0, Math.floor(limit.limit / 2) - used);
}

/**
 * A sliding log over groups of starts. Each group counts as if all its starts began at the latest time they may
 * (`lastStartOf`), so the log can only overcount: a group stays in the window until `perMs` after its last
 * possible start, and every window of `perMs` holds at most `limit` starts that really began. A start is allowed
 * while fewer than `limit` are in the window; a request is granted more than one start (a block, held `holdMs`)
 * only while the key stays at most half full with them, so a key near its limit is decided one start at a time,
 * exactly, and a block's unused starts can cost a busy key at most half its limit for one hold and one window. A
 * refused request is told to come back when enough groups leave the window, or one interval (`perMs / limit`) after
 * the previous refused one, so waiting jobs return spread out in order.
 */
export function takeStarts(window: KeyWindow, limit: RateLimit, request: StartRequest, now: number): StartGrant {
  const used = startsStillIn(window, limit, now);
  if (used < limit.limit) {
    const block = request.starts > 1 ? Math.min(request.starts, blockRoom(used, limit)) : 0;
    const grant =
      block > 1 && request.holdMs > 0 ? { starts: block, holdMs: request.holdMs } : { starts: 1, holdMs: 0 };
    window.groups.push([0, grant.starts, grant.holdMs]);
    return { allowed: true, ...grant };
  }
  const byLastStart = [...window.groups].sort((a, b) => lastStartOf(a, now) - lastStartOf(b, now));
  let left = used;
  let freesAt = now + limit.perMs;
  for (const group of byLastStart) {
    left -= group[1];
    if (left < limit.limit) {
      freesAt = lastStartOf(group, now) + limit.perMs;
      break;
    }
  }
  const retryAt = Math.max(freesAt, window.nextReserved);
  window.nextReserved = retryAt + limit.perMs / limit.limit;
  return { allowed: false, retryAt };
}

/**
 * Reserves a block ahead of the jobs that will use it: up to `request.starts` starts held `request.holdMs`, as long
 * as the key stays at most half full with them. Returns how many (0: none, and nothing changes: a key that full is
 * decided one start at a time, by {@link takeStarts}).
 */
export function reserveStarts(window: KeyWindow, limit: RateLimit, request: StartRequest, now: number): number {
  const starts = Math.min(request.starts, blockRoom(startsStillIn(window, limit, now), limit));
  if (starts < 1 || request.holdMs <= 0) return 0;
  window.groups.push([0, starts, request.holdMs]);
  return starts;
}

/** Starts in the window of `window` at `now` (reserved ones included, used or not). */
export function startsInWindow(window: KeyWindow, now: number): number {
  return countOf(groupsIn(window, now));
}

/** How a partition entry is read and written: groups stamped 0 are read as the write's server time. */
export const ratePartitionCodec: PartitionCodec<RatePartition> = {
  decode(text, writtenAt) {
    const keys: Record<string, KeyWindow> = {};
    for (const [key, stored] of Object.entries(parsePartitionJson<StoredWindow>(text)?.keys ?? {})) {
      const groups: StartGroup[] = (stored.groups ?? []).map(([at, count, holdMs]) => [at || writtenAt, count, holdMs]);
      // Entries written before starts were grouped list single starts.
      for (const at of stored.starts ?? []) groups.push([at || writtenAt, 1, 0]);
      keys[key] = { groups, perMs: stored.perMs, nextReserved: stored.nextReserved ?? 0 };
    }
    return { keys };
  },
  encode: (state) => JSON.stringify(state),
  prune(state, now) {
    for (const [key, window] of Object.entries(state.keys)) {
      window.groups = groupsIn(window, now);
      if (window.groups.length === 0 && window.nextReserved <= now) delete state.keys[key];
    }
  },
  settle(state, writtenAt) {
    for (const window of Object.values(state.keys))
      for (const group of window.groups) if (group[0] === 0) group[0] = writtenAt;
  },
};

interface StoredWindow {
  groups?: StartGroup[];
  starts?: number[];
  perMs: number;
  nextReserved?: number;
}
