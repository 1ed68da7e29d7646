import type { JetStreamClient, JetStreamManager, MsgRequest } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { BerthLogger } from '@berth/logger';
import { compareAndSetKv, publishMessage } from '@berth/messaging';
import { systemClock, type Clock } from '@berth/contract';
import { JOB_COUNT_HEADER, type JobRecord } from '../../job-record';
import { JOBS_STREAM_NAME, jobSubjectOf, queueConsumerName } from '../../names';
import { FAIR_JOB_NAME_HEADER, FAIR_JOBS_STREAM_NAME, fairQueueFilter } from './fair-jobs-stream';

/** Options for {@link startFairFeeder}. */
export interface FairFeederOptions {
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** Where the feeders of a queue elect one of them (`f.<queue>`, a lease renewed by compare-and-set). */
  leases: KV;
  queue: string;
  /** This process, in the lease. */
  owner: string;
  /**
   * Messages the feeder lets wait in `JOBS` for the queue's workers before it moves more: at least `ahead` (default
   * 4), and more when the messages it moves are small, up to `aheadJobs` jobs (default 256, at most 64 messages).
   * Small messages (one job each, as keys with few jobs make) would otherwise starve the workers between turns.
   */
  ahead?: number;
  aheadJobs?: number;
  /** How long the list of keys with fair jobs is used before it is read again (default 100 ms). */
  listMs?: number;
  /**
   * The encoded keys whose jobs would only be parked now (`KeySlots.saturated`): their fair jobs wait their turn in
   * `JOBS_FAIR` instead of going round `JOBS` and `JOBS_PARKED`. Without it every key is fed.
   */
  saturatedKeys?: () => Promise<Set<string>>;
  /** How long a feeder's lease lasts without renewal (default 5 s): a dead feeder is replaced after it. */
  leaseMs?: number;
  logger: BerthLogger;
  /** Times the lease and the waits between turns; the system clock by default. */
  clock?: Clock;
}

/** A running feeder; `stop` ends its loop and gives its lease up (the key stays: producers look for it). */
export interface FairFeeder {
  stop(): Promise<void>;
}

/**
 * Feeds a queue's fair jobs (`JOBS_FAIR`, one subject per key) into `JOBS`, round-robin over the keys that have jobs
 * waiting, a key of weight w moving w messages a turn, and only while few messages of the queue wait (`ahead`)
 * in `JOBS`: so a job of a key with 10 jobs waits behind at most a turn of each other key, not behind another key's
 * 10,000. Every worker of the queue runs one; a lease in KV lets one of them feed at a time, and another takes over
 * when it stops renewing. A move publishes the job to `JOBS` (message id `fair:<seq>`, so two feeders moving the
 * same message store it once) and then deletes it from `JOBS_FAIR`.
 */
export function startFairFeeder(options: FairFeederOptions): FairFeeder {
  const ahead = options.ahead ?? 4;
  const aheadJobs = options.aheadJobs ?? 256;
  /** Jobs per message moved, a moving average (starting at a full message, so the first turns are small). */
  let jobsPerMessage = 100;
  const listMs = options.listMs ?? 100;
  const leaseMs = options.leaseMs ?? 5000;
  const leaseKey = `f.${options.queue}`;
  const clock = options.clock ?? systemClock;
  const weights = new Map<string, number>();
  let cursor = '';
  /** Messages the key at `cursor` moved in its current turn. */
  let used = 0;
  let stopping = false;
  let wake: (() => void) | undefined;
  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const cancel = clock.setTimer(ms, resolve);
      wake = () => {
        cancel();
        resolve();
      };
    });

  let heldUntil = 0;
  const holdLease = async (): Promise<boolean> => {
    const now = clock.now().getTime();
    if (heldUntil - now > leaseMs / 2) return true;
    type Lease = { owner: string; until: number };
    const held = await compareAndSetKv<Lease, boolean>(
      options.leases,
      leaseKey,
      ({ value: lease }) =>
        lease && lease.owner !== options.owner && lease.until > now
          ? { result: false }
          : { write: { put: { owner: options.owner, until: now + leaseMs } }, result: true },
      { decode: (entry) => entry.json<Lease>(), what: `The fair feeder lease of ${options.queue}` },
    );
    if (held) heldUntil = now + leaseMs;
    return held;
  };

  /** Moves the oldest message of one key's subject to `JOBS`; false when the key has none left. */
  const moveOldest = async (subject: string): Promise<boolean> => {
    // STREAM.MSG.GET takes `next_by_subj`; nats.js types name only `seq` and `last_by_subj`.
    const oldest = await options.jsm.streams.getMessage(FAIR_JOBS_STREAM_NAME, {
      seq: 0,
      next_by_subj: subject,
    } as unknown as MsgRequest);
    if (!oldest) return false;
    const records = oldest.json<JobRecord[]>();
    if (records[0]?.fairWeight) weights.set(subject, records[0].fairWeight);
    jobsPerMessage = (jobsPerMessage * 7 + Math.max(1, records.length)) / 8;
    await publishMessage(options.js, {
      subject: jobSubjectOf(options.queue, oldest.header.get(FAIR_JOB_NAME_HEADER), records[0]?.priority),
      data: oldest.data,
      msgId: `fair:${oldest.seq}`,
      expectedStream: JOBS_STREAM_NAME,
      headers: { [JOB_COUNT_HEADER]: String(records.length) },
    });
    await options.jsm.streams.deleteMessage(FAIR_JOBS_STREAM_NAME, oldest.seq, false).catch(() => false);
    return true;
  };

  /** The keys' subjects with fair jobs, less the saturated keys, as last listed (at most `listMs` ago). */
  let listed: { subjects: string[]; at: number } | undefined;
  const listSubjects = async (): Promise<string[]> => {
    if (listed && clock.monotonic() - listed.at < listMs) return listed.subjects;
    const info = await options.jsm.streams.info(FAIR_JOBS_STREAM_NAME, {
      subjects_filter: fairQueueFilter(options.queue),
    });
    const stored = Object.keys((info.state.subjects as Record<string, number> | undefined) ?? {});
    // `fair.<queue>.<encoded key>.<name>`: a key whose slots are all held with jobs parked behind them skips its turn.
    const saturated = stored.length > 0 ? ((await options.saturatedKeys?.()) ?? new Set<string>()) : new Set();
    const subjects = stored.filter((subject) => !saturated.has(subject.split('.')[2])).sort();
    listed = { subjects, at: clock.monotonic() };
    return subjects;
  };

  /** Moves up to `count` messages of one key, oldest first; a key found empty leaves the list until it is read again. */
  const moveMany = async (subject: string, count: number): Promise<void> => {
    for (let moved = 0; moved < count && !stopping; moved++) {
      if (await moveOldest(subject)) continue;
      if (listed) listed.subjects = listed.subjects.filter((other) => other !== subject);
      return;
    }
  };

  /**
   * One turn: hands the room left in `JOBS` out key after key from the cursor on, then moves every key's share at
   * once (a key's own messages one after another); the time to wait after it.
   */
  const turn = async (): Promise<number> => {
    if (!(await holdLease())) return leaseMs / 2;
    // The fair subjects first: a queue without fair jobs (most of the time, on most queues) costs one small stream
    // info every 100 ms, not a look at its busy consumer every 10.
    const subjects = await listSubjects();
    if (subjects.length === 0) {
      listed = undefined;
      return 100;
    }
    const consumer = await options.jsm.consumers.info(JOBS_STREAM_NAME, queueConsumerName(options.queue));
    let room = Math.max(ahead, Math.min(64, Math.floor(aheadJobs / jobsPerMessage))) - consumer.num_pending;
    if (room <= 0) return 10;
    // The key whose turn it is keeps it until it moved its weight's worth of messages (over several turns when the
    // room in JOBS is small), then the next key, in key order, takes it.
    const weightOf = (subject: string): number => weights.get(subject) ?? 1;
    const resume = subjects.indexOf(cursor) >= 0 && used < weightOf(cursor);
    const start = resume ? subjects.indexOf(cursor) : subjects.findIndex((subject) => subject > cursor);
    const order = [...subjects.slice(Math.max(0, start)), ...(start > 0 ? subjects.slice(0, start) : [])];
    const shares: [string, number][] = [];
    for (const [index, subject] of order.entries()) {
      if (room <= 0) break;
      if (!(resume && index === 0)) {
        cursor = subject;
        used = 0;
      }
      const share = Math.min(weightOf(subject) - used, room);
      shares.push([subject, share]);
      used += share;
      room -= share;
    }
    await Promise.all(shares.map(([subject, share]) => moveMany(subject, share)));
    return room > 0 ? 20 : 0;
  };

  const loop = (async () => {
    while (!stopping) {
      let waitMs: number;
      try {
        waitMs = await turn();
      } catch (error) {
        options.logger.warn({ err: error, queue: options.queue }, 'Fair feeder: a turn failed; trying again');
        waitMs = 1000;
      }
      if (waitMs > 0 && !stopping) await sleep(waitMs);
    }
  })();

  return {
    async stop() {
      stopping = true;
      wake?.();
      await loop;
      if (heldUntil > clock.now().getTime()) {
        const current = await options.leases.get(leaseKey).catch(() => null);
        if (current && current.operation === 'PUT' && current.json<{ owner: string }>().owner === options.owner)
          await options.leases
            .update(leaseKey, JSON.stringify({ owner: '', until: 0 }), current.revision)
            .catch(() => undefined);
      }
    },
  };
}
