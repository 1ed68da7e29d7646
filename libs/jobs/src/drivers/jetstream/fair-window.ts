import { decodeJobRecords, encodeJobRecord } from '../../job-record';

/** Where a job of `JOBS_FAIR` is: its message's stream sequence and its index in the message's body. */
export type FairJobRef = readonly [seq: number, index: number];

/** A message of `JOBS_FAIR` held by the window. */
interface FairSource {
  /** Each record's JSON text, to assemble `JOBS` bodies without encoding again. */
  records: string[];
  /** Each record's `JOBS` subject (its job name and priority). */
  subjects: string[];
  /** One bit per record: moved to `JOBS` (in a round written to the plan). */
  emitted: Uint8Array;
  remaining: number;
  bytes: number;
}

/** How much of `JOBS_FAIR` a window holds in memory at most (whichever limit comes first). */
export interface FairWindowLimits {
  /** Jobs waiting their turn (default 50,000). */
  maxJobs?: number;
  /** Body bytes of the messages held (default 64 MiB). */
  maxBytes?: number;
  /** Messages held (default 2,000): bounds the plan, which names the moved jobs of each. */
  maxMessages?: number;
}

/**
 * The fair feeder's view of a queue's `JOBS_FAIR` messages, read in stream order up to its limits: each job waits in
 * its fair key's line, and {@link FairWindow.take} deals turns round-robin over the keys in key order, a key of
 * weight w taking w jobs a turn. It holds no connection: the feeder reads messages into it and moves what it takes.
 * A message leaves once every job of it was taken ({@link FairWindow.finished}).
 */
export class FairWindow {
  private readonly sources = new Map<number, FairSource>();
  private readonly lines = new Map<string, { refs: FairJobRef[]; head: number }>();
  private readonly weights = new Map<string, number>();
  /** The concurrency limit given to `add` with a key's latest job, if any. */
  private readonly keyLimits = new Map<string, number>();
  private readonly limits: Required<FairWindowLimits>;
  /** The key whose turn it is, and how many jobs it took in it. */
  private cursor = '';
  private used = 0;
  private waitingJobs = 0;
  private heldBytes = 0;

  constructor(
    /** The `JOBS` subject of a record of the named job at its priority. */
    private readonly subjectOf: (name: string, priority: number | undefined) => string,
    limits: FairWindowLimits = {},
  ) {
    this.limits = {
      maxJobs: limits.maxJobs ?? 50_000,
      maxBytes: limits.maxBytes ?? 64 * 1024 * 1024,
      maxMessages: limits.maxMessages ?? 2_000,
    };
  }

  /** Jobs waiting their turn in the window. */
  get waiting(): number {
    return this.waitingJobs;
  }

  /** Whether another message may be read in. */
  hasRoom(): boolean {
    return (
      this.waitingJobs < this.limits.maxJobs &&
      this.heldBytes < this.limits.maxBytes &&
      this.sources.size < this.limits.maxMessages
    );
  }

  has(seq: number): boolean {
    return this.sources.has(seq);
  }

  /**
   * Takes a message in: each record not marked in `emitted` (moved before, as the plan says) joins its key's line.
   * A body that is not a list of job records is held as finished, so the feeder removes it (nothing could run it).
   */
  add(seq: number, body: string, name: string, emitted?: Uint8Array): void {
    if (this.sources.has(seq)) return;
    let records: ReturnType<typeof decodeJobRecords>;
    try {
      records = decodeJobRecords(body);
    } catch {
      records = [];
    }
    const bits = new Uint8Array(Math.ceil(records.length / 8));
    if (emitted) bits.set(emitted.subarray(0, bits.length));
    const source: FairSource = { records: [], subjects: [], emitted: bits, remaining: 0, bytes: body.length };
    records.forEach((record, index) => {
      source.records.push(encodeJobRecord(record));
      source.subjects.push(this.subjectOf(name, record.priority));
      if (isSet(bits, index)) return;
      const key = record.fairKey ?? '';
      if (record.fairWeight) this.weights.set(key, record.fairWeight);
      if (record.concurrency?.key === key) this.keyLimits.set(key, record.concurrency.limit);
      const line = this.lines.get(key) ?? { refs: [], head: 0 };
      line.refs.push([seq, index]);
      this.lines.set(key, line);
      source.remaining++;
      this.waitingJobs++;
    });
    this.sources.set(seq, source);
    this.heldBytes += source.bytes;
  }

  /**
   * Deals up to `room` jobs: key after key in key order from the one whose turn it is, each key taking its weight's
   * worth before the next (a turn cut short by `room` goes on in the next call), round after round while room is
   * left, so a key alone takes all of it, except that a key whose jobs carry a concurrency limit (given to `add`)
   * takes at most that many a call: more would only be parked, ahead of the next key's jobs. Keys `skip` names keep
   * their jobs for later. The jobs taken are marked moved: the caller writes them to its plan before it publishes
   * them.
   */
  take(room: number, skip: (key: string) => boolean = () => false): FairJobRef[] {
    const keys = [...this.lines.keys()].filter((key) => !skip(key)).sort();
    const taken: FairJobRef[] = [];
    if (keys.length === 0 || room <= 0) return taken;
    const weightOf = (key: string): number => Math.max(1, Math.floor(this.weights.get(key) ?? 1));
    const resume = keys.includes(this.cursor) && this.used < weightOf(this.cursor);
    let at = resume ? keys.indexOf(this.cursor) : keys.findIndex((key) => key > this.cursor);
    if (at < 0) at = 0;
    let continuing = resume;
    const takenOf = new Map<string, number>();
    while (room > 0 && keys.length > 0) {
      const key = keys[at];
      if (!continuing) {
        this.cursor = key;
        this.used = 0;
      }
      continuing = false;
      const line = this.lines.get(key)!;
      const before = takenOf.get(key) ?? 0;
      const cap = (this.keyLimits.get(key) ?? Infinity) - before;
      const share = Math.min(weightOf(key) - this.used, room, line.refs.length - line.head, cap);
      for (let n = 0; n < share; n++) taken.push(line.refs[line.head++]);
      takenOf.set(key, before + share);
      this.used += share;
      room -= share;
      if (line.head === line.refs.length) {
        this.lines.delete(key);
        keys.splice(at, 1);
        if (at >= keys.length) at = 0;
      } else if (line.head > 1024 && line.head * 2 > line.refs.length) {
        line.refs.splice(0, line.head);
        line.head = 0;
      }
      if (!this.lines.has(key)) continue;
      if (share === cap) {
        // Its limit's worth taken: its turn ends, and it sits out the rest of this call.
        this.used = weightOf(key);
        keys.splice(at, 1);
        if (at >= keys.length) at = 0;
        continue;
      }
      if (this.used >= weightOf(key)) {
        at = (at + 1) % keys.length;
      } else {
        continuing = true; // room ran out within the key's turn
      }
    }
    for (const ref of taken) this.mark(ref);
    return taken;
  }

  private mark([seq, index]: FairJobRef): void {
    const source = this.sources.get(seq);
    if (!source || isSet(source.emitted, index)) return;
    source.emitted[index >> 3] |= 1 << (index & 7);
    source.remaining--;
    this.waitingJobs--;
  }

  /** A taken job's `JOBS` subject and JSON text, when its message is held. */
  job([seq, index]: FairJobRef): { subject: string; record: string } | undefined {
    const source = this.sources.get(seq);
    if (!source || index >= source.records.length) return undefined;
    return { subject: source.subjects[index], record: source.records[index] };
  }

  /**
   * The messages every job of which was taken, oldest first: to remove from `JOBS_FAIR`, then
   * {@link FairWindow.drop}.
   */
  finished(): number[] {
    return [...this.sources].flatMap(([seq, source]) => (source.remaining === 0 ? [seq] : [])).sort((a, b) => a - b);
  }

  /** The oldest message held with jobs still waiting, if any (a message may be taken in out of order, on takeover). */
  oldestUnfinished(): number | undefined {
    let oldest: number | undefined;
    for (const [seq, source] of this.sources)
      if (source.remaining > 0 && (oldest === undefined || seq < oldest)) oldest = seq;
    return oldest;
  }

  drop(seq: number): void {
    const source = this.sources.get(seq);
    if (!source) return;
    this.sources.delete(seq);
    this.heldBytes -= source.bytes;
  }

  /** The moved jobs of every message held that still has jobs waiting or is not yet removed, for the plan. */
  emitted(): Record<string, string> {
    const marks: Record<string, string> = {};
    for (const [seq, source] of this.sources)
      if (source.emitted.some((byte) => byte !== 0)) marks[seq] = Buffer.from(source.emitted).toString('base64url');
    return marks;
  }
}

function isSet(bits: Uint8Array, index: number): boolean {
  return ((bits[index >> 3] ?? 0) & (1 << (index & 7))) !== 0;
}

/** Whether a plan's marks of one message (see {@link FairWindow.emitted}) name the job at `index` moved. */
export function isMarked(mark: string | undefined, index: number): boolean {
  const bits = decodeEmitted(mark);
  return bits !== undefined && isSet(bits, index);
}

/** Reads a plan's marks of one message (see {@link FairWindow.emitted}). */
export function decodeEmitted(mark: string | undefined): Uint8Array | undefined {
  return mark === undefined ? undefined : new Uint8Array(Buffer.from(mark, 'base64url'));
}
