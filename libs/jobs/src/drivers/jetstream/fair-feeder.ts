import type { JetStreamClient, JetStreamManager, MsgRequest } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import type { BerthLogger } from '@berth/logger';
import { isNotFound, isWrongLastSequence, publishMessage } from '@berth/messaging';
import { systemClock, type Clock } from '@berth/contract';
import { JOB_COUNT_HEADER, joinEncodedRecords } from '../../job-record';
import { JOBS_STREAM_NAME, jobSubjectOf, queueConsumerName } from '../../names';
import { FAIR_JOB_NAME_HEADER, FAIR_JOBS_STREAM_NAME, fairFeederLeaseKey, fairQueueFilter } from './fair-jobs-stream';
import { decodeEmitted, FairWindow, isMarked, type FairJobRef, type FairWindowLimits } from './fair-window';
import { encodeKey } from './kv-key-slots';

/** Options for {@link startFairFeeder}. */
export interface FairFeederOptions {
  js: JetStreamClient;
  jsm: JetStreamManager;
  /**
   * The connection on which an idle feeder listens for the next fair job of its queue (a subscription to the
   * queue's `JOBS_FAIR` subjects while it waits): it reads at once instead of looking every `listMs`. Without it,
   * an idle feeder looks every `listMs`.
   */
  nc?: NatsConnection;
  /** Where the feeders of a queue elect one of them (`f.<queue>`, a lease renewed by compare-and-set). */
  leases: KV;
  queue: string;
  /**
   * The queue's consumers on `JOBS` whose waiting messages it counts: by default the queue's one consumer; a queue
   * with priorities has one per band besides (fair jobs with a priority go to their band).
   */
  consumers?: readonly string[];
  /** This process, in the lease. */
  owner: string;
  /**
   * Jobs the feeder lets wait in `JOBS` for the queue's workers before it moves more: from 4, doubled each time the
   * workers took all of them before the feeder looked again, shrinking back while they do not, up to `aheadJobs`
   * (default 1,024). So slow workers see few jobs ahead (a new key's job waits behind few) and fast ones are not starved.
   */
  aheadJobs?: number;
  /** Most jobs one message it writes to `JOBS` carries (default 100; a quarter of the jobs it lets wait, at most). */
  jobsPerMessage?: number;
  /** How much of `JOBS_FAIR` the feeder holds in memory to deal turns from (see {@link FairWindowLimits}). */
  window?: FairWindowLimits;
  /**
   * How long the feeder waits at most before it looks for new fair jobs again once it read them all (default 100
   * ms): it looks again after 1 ms, then waits twice as long each time it finds none, up to this. A feeder given
   * `nc` that found none eight times in a row waits for a fair job to be published instead, and looks again after
   * `idleMs` at the latest.
   */
  listMs?: number;
  /** With `nc`: the longest an idle feeder waits for a publish before it looks again (default 5 s). */
  idleMs?: number;
  /**
   * The encoded keys whose jobs would only be parked now (`KeySlots.saturated`): their fair jobs wait their turn in
   * the window instead of going round `JOBS` and `JOBS_PARKED`. Without it every key is fed.
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

/** One round's messages to `JOBS`: each a subject and the jobs it carries. */
interface FairRound {
  id: string;
  messages: { subject: string; refs: FairJobRef[] }[];
}

/**
 * The lease entry `f.<queue>`: who feeds and until when, and what it moved that is still in `JOBS_FAIR`: the last
 * round (published, or about to be) and, per message of `JOBS_FAIR` held, which of its jobs were moved.
 */
interface FairPlan {
  owner: string;
  until: number;
  round?: FairRound;
  emitted?: Record<string, string>;
}

/** Reads in a row that found no new fair job (about 130 ms of looking) before an idle feeder listens for one. */
const READS_BEFORE_LISTENING = 8;

/** Jobs the feeder lets wait in `JOBS` at least. */
const MIN_AHEAD_JOBS = 4;

/** Finished messages held behind an unfinished one before they are deleted one by one instead of purged. */
const MAX_FINISHED_HELD = 64;

/** Bytes at most in one message the feeder writes to `JOBS` (a bigger job still goes, alone). */
const MAX_BYTES_PER_MESSAGE = 256 * 1024;

/**
 * Feeds a queue's fair jobs (`JOBS_FAIR`) into `JOBS`: it reads the queue's messages there in order into a
 * {@link FairWindow}, and while fewer than `aheadJobs` jobs wait in `JOBS` it deals the next jobs round-robin over
 * their keys (a key of weight w takes w jobs a turn) and writes them to `JOBS` in messages of many keys' jobs. So a
 * job of a key with 10 waits behind at most a turn of each other key, not behind another key's 10,000.
 *
 * Every worker of the queue runs one; the lease `f.<queue>` lets one of them feed at a time, and another takes over
 * when it stops renewing. Each round is first written to the lease (a compare-and-set on its revision, which also
 * proves the lease is still held) with the jobs moved from every message still in `JOBS_FAIR`, then published with
 * message ids `fair:<round>:<n>`; a message of `JOBS_FAIR` is removed once all its jobs moved. A feeder taking over
 * publishes the last round again (the ids make a second copy a duplicate) and skips the jobs the lease says moved:
 * no job is lost or moved twice.
 */
export function startFairFeeder(options: FairFeederOptions): FairFeeder {
  const aheadJobs = options.aheadJobs ?? 1024;
  const jobsPerMessage = options.jobsPerMessage ?? 100;
  const listMs = options.listMs ?? 100;
  const idleMs = options.idleMs ?? 5000;
  /** Whether an idle feeder waits for a publish (see `nc`), until a subscription is refused. */
  let listenForPublishes = options.nc !== undefined;
  const leaseMs = options.leaseMs ?? 5000;
  const leaseKey = fairFeederLeaseKey(options.queue);
  const consumers = options.consumers ?? [queueConsumerName(options.queue)];
  const clock = options.clock ?? systemClock;
  /** Jobs per message in `JOBS` the feeder wrote, a moving average: the jobs its pending messages hold. */
  let averageJobs = 1;
  /** Jobs it lets wait in `JOBS` now (see `aheadJobs`). */
  let targetAhead = MIN_AHEAD_JOBS;
  let rounds = 0;
  let stopping = false;
  /** The turns' waits, and the reader's: each cut short by `wake` (new jobs read, or `stop`). */
  const turns = napper(clock);
  const reads = napper(clock);

  /** What the holder of the lease knows; none while another feeds. */
  interface Held {
    revision: number;
    until: number;
    window: FairWindow;
    /** The next sequence of `JOBS_FAIR` to read. */
    readSeq: number;
    /** The loop reading `JOBS_FAIR` into the window (see `startReader`). */
    reader?: Promise<void>;
    /** The moved jobs of messages not read yet, from the plan taken over. */
    inherited: Record<string, string>;
    /** A round written to the plan, not yet known published. */
    pending?: FairRound;
    /** The removal of finished messages under way, if any. */
    removal?: Promise<void>;
    saturated: { keys: Set<string>; at: number };
  }
  let held: Held | undefined;

  const newWindow = () =>
    new FairWindow((name, priority) => jobSubjectOf(options.queue, name, priority), options.window);

  /** Takes the lease if it is free (or ours), with the plan it holds; false while another feeder holds it. */
  const acquire = async (): Promise<boolean> => {
    const entry = await options.leases.get(leaseKey);
    const plan: FairPlan | undefined = entry && entry.operation === 'PUT' ? entry.json<FairPlan>() : undefined;
    const now = clock.now().getTime();
    if (plan && plan.owner !== options.owner && plan.owner !== '' && plan.until > now) return false;
    const next: FairPlan = { ...plan, owner: options.owner, until: now + leaseMs };
    let revision: number;
    try {
      revision = entry
        ? await options.leases.update(leaseKey, JSON.stringify(next), entry.revision)
        : await options.leases.create(leaseKey, JSON.stringify(next));
    } catch (error) {
      if (isWrongLastSequence(error)) return false;
      throw error;
    }
    held = {
      revision,
      until: next.until,
      window: newWindow(),
      readSeq: 0,
      inherited: plan?.emitted ?? {},
      pending: plan?.round,
      saturated: { keys: new Set(), at: -Infinity },
    };
    held.reader = startReader(held);
    return true;
  };

  /** Writes the plan (renewing the lease); on any failure the state is dropped and the lease taken again. */
  const writePlan = async (state: Held, round: FairRound | undefined, until: number, owner = options.owner) => {
    const emitted = { ...state.inherited, ...state.window.emitted() };
    const plan: FairPlan = { owner, until, ...(round ? { round } : {}), emitted };
    try {
      state.revision = await options.leases.update(leaseKey, JSON.stringify(plan), state.revision);
      state.until = until;
    } catch (error) {
      held = undefined; // taken over, or not known written: acquiring again reads what the lease holds
      throw error;
    }
  };

  /** Reads the queue's next message of `JOBS_FAIR` into the window; false when there is none yet. */
  const readNext = async (state: Held): Promise<boolean> => {
    // STREAM.MSG.GET takes `next_by_subj`; nats.js types name only `seq` and `last_by_subj`.
    const next = await options.jsm.streams.getMessage(FAIR_JOBS_STREAM_NAME, {
      seq: state.readSeq,
      next_by_subj: fairQueueFilter(options.queue),
    } as unknown as MsgRequest);
    if (!next) {
      state.inherited = {}; // the messages it named that were not read are gone: all their jobs moved
      return false;
    }
    for (const seq of Object.keys(state.inherited)) if (Number(seq) < next.seq) delete state.inherited[seq];
    state.readSeq = next.seq + 1;
    const wasIdle = state.window.waiting === 0;
    addToWindow(state, next.seq, next.string(), next.header?.get(FAIR_JOB_NAME_HEADER), next.subject);
    if (wasIdle) turns.wake();
    return true;
  };

  /**
   * Waits, idle, for the next fair job of the queue: subscribed to its subjects first, then read once more (a job
   * published before the subscription is read then), then asleep until a publish or `idleMs`, and so again until a
   * read finds a job, a publish comes, a subscription is refused, or the lease or the feeder stops. A publish can
   * reach the subscription before `JOBS_FAIR` stored it: the reader then looks again from 1 ms on, as after any job.
   */
  const awaitPublish = async (state: Held, nc: NatsConnection): Promise<void> => {
    let published = false;
    while (!published && listenForPublishes && held === state && !stopping) {
      const subscription = nc.subscribe(fairQueueFilter(options.queue), {
        max: 1,
        callback: (error) => {
          if (error) {
            // Not allowed to subscribe (a NATS user without `fair.>`): look every `listMs` from now on.
            listenForPublishes = false;
            options.logger.warn(
              { err: error, queue: options.queue },
              'Fair feeder: cannot listen for new jobs; polling',
            );
          } else published = true;
          reads.wake();
        },
      });
      try {
        await nc.flush();
        if (await readNext(state)) return;
        if (held === state && !stopping) await reads.sleep(idleMs);
      } finally {
        subscription.unsubscribe();
      }
    }
  };

  /** Keeps the window filled beside the rounds, while this state holds the lease: a round never waits for reads. */
  const startReader = (state: Held): Promise<void> =>
    (async () => {
      /** Reads in a row that found nothing new: the wait before the next one doubles from 1 ms up to `listMs`. */
      let empty = 0;
      while (held === state && !stopping) {
        let waitMs = 0;
        try {
          if (!state.window.hasRoom()) waitMs = 10;
          else if (await readNext(state)) empty = 0;
          else if (options.nc && listenForPublishes && empty + 1 >= READS_BEFORE_LISTENING) {
            await awaitPublish(state, options.nc);
            empty = 0;
          } else waitMs = Math.min(listMs, 2 ** empty++);
        } catch (error) {
          options.logger.warn({ err: error, queue: options.queue }, 'Fair feeder: a read failed; trying again');
          waitMs = 1000;
        }
        if (waitMs > 0 && held === state && !stopping) await reads.sleep(waitMs);
      }
    })();

  const addToWindow = (state: Held, seq: number, body: string, name: string | undefined, subject: string) => {
    const mark = state.inherited[String(seq)];
    delete state.inherited[String(seq)];
    state.window.add(seq, body, name || subject.split('.').pop()!, decodeEmitted(mark));
  };

  /** Publishes a round to `JOBS`, each message with its id, reading any message of `JOBS_FAIR` it needs. */
  const publishRound = async (state: Held, round: FairRound): Promise<void> => {
    for (const seq of new Set(round.messages.flatMap((message) => message.refs.map(([s]) => s)))) {
      if (state.window.has(seq)) continue;
      const stored = await options.jsm.streams.getMessage(FAIR_JOBS_STREAM_NAME, { seq });
      // Gone: every job of it was moved and published before it was deleted.
      if (stored) addToWindow(state, seq, stored.string(), stored.header?.get(FAIR_JOB_NAME_HEADER), stored.subject);
    }
    await Promise.all(
      round.messages.map(async (message, n) => {
        const records = message.refs.flatMap((ref) => state.window.job(ref)?.record ?? []);
        if (records.length === 0) return;
        await publishMessage(options.js, {
          subject: message.subject,
          data: joinEncodedRecords(records),
          msgId: `fair:${round.id}:${n}`,
          expectedStream: JOBS_STREAM_NAME,
          headers: { [JOB_COUNT_HEADER]: String(records.length) },
        });
      }),
    );
  };

  /**
   * Starts removing the messages of `JOBS_FAIR` all of whose jobs were moved and published, beside the next rounds
   * (one removal at a time): those older than every message with jobs waiting (and than the next one to read) in one
   * purge of the queue's subjects below it, and, once more than {@link MAX_FINISHED_HELD} others wait behind an
   * unfinished one, those one by one. A message leaves the window (and the plan's marks) only once it is removed.
   */
  const removeFinished = (state: Held): void => {
    if (state.removal) return;
    const finished = state.window.finished();
    if (finished.length === 0) return;
    // Below both the oldest message with jobs waiting and the next one to read: every message of the queue there was
    // read and finished (a message taken in out of order, on takeover, may lie beyond the reader).
    const purgeBelow = Math.min(state.window.oldestUnfinished() ?? Infinity, state.readSeq);
    const older = finished.filter((seq) => seq < purgeBelow);
    const newer = finished.filter((seq) => seq > purgeBelow);
    state.removal = (async () => {
      if (older.length > 0) {
        await options.jsm.streams.purge(FAIR_JOBS_STREAM_NAME, {
          filter: fairQueueFilter(options.queue),
          seq: older[older.length - 1] + 1,
        });
        for (const seq of older) state.window.drop(seq);
      }
      if (newer.length > MAX_FINISHED_HELD)
        await Promise.all(
          newer.map(async (seq) => {
            await options.jsm.streams.deleteMessage(FAIR_JOBS_STREAM_NAME, seq, false).catch((error: unknown) => {
              if (!isNotFound(error)) throw error;
            });
            state.window.drop(seq);
          }),
        );
    })()
      .catch((error: unknown) =>
        options.logger.warn({ err: error, queue: options.queue }, 'Fair feeder: a removal failed; trying again'),
      )
      .finally(() => (state.removal = undefined));
  };

  /** Groups the jobs taken into messages per `JOBS` subject, at most `perMessage` jobs and 256 KiB each. */
  const makeRound = (window: FairWindow, refs: FairJobRef[], perMessage: number): FairRound => {
    const messages: FairRound['messages'] = [];
    const open = new Map<string, { subject: string; refs: FairJobRef[]; bytes: number }>();
    for (const ref of refs) {
      const job = window.job(ref)!;
      let message = open.get(job.subject);
      if (!message || message.refs.length >= perMessage || message.bytes + job.record.length > MAX_BYTES_PER_MESSAGE) {
        message = { subject: job.subject, refs: [], bytes: 0 };
        open.set(job.subject, message);
        messages.push(message);
      }
      message.refs.push(ref);
      message.bytes += job.record.length + 1;
    }
    return {
      id: `${options.owner}:${++rounds}`,
      messages: messages.map(({ subject, refs: taken }) => ({ subject, refs: taken })),
    };
  };

  /** Settles what a taken-over or failed round left, then removes what is finished. */
  const settle = async (state: Held): Promise<void> => {
    if (state.pending) {
      await publishRound(state, state.pending);
      state.pending = undefined;
    }
    removeFinished(state);
  };

  /** One turn: deals the room left in `JOBS`, writes the round to the plan, publishes it; the time to wait after. */
  const turn = async (): Promise<number> => {
    if (!held && !(await acquire())) return leaseMs / 2;
    const state = held!;
    await settle(state);
    const now = clock.now().getTime();
    if (state.window.waiting === 0) {
      if (state.until - now < leaseMs / 2) await writePlan(state, undefined, now + leaseMs);
      return listMs;
    }
    const infos = await Promise.all(consumers.map((name) => options.jsm.consumers.info(JOBS_STREAM_NAME, name)));
    const pending = infos.reduce((sum, info) => sum + info.num_pending, 0);
    // The workers took all it let wait: let more wait. They left it all there: let less wait.
    if (pending === 0) targetAhead = Math.min(aheadJobs, targetAhead * 2);
    const room = Math.floor(targetAhead - pending * averageJobs);
    if (room <= 0) {
      targetAhead = Math.max(MIN_AHEAD_JOBS, targetAhead * 0.95);
      if (state.until - now < leaseMs / 2) await writePlan(state, undefined, now + leaseMs);
      return 10;
    }
    if (options.saturatedKeys && clock.monotonic() - state.saturated.at >= listMs)
      state.saturated = { keys: await options.saturatedKeys(), at: clock.monotonic() };
    const saturated = state.saturated.keys;
    const refs = state.window.take(room, saturated.size > 0 ? (key) => saturated.has(encodeKey(key)) : undefined);
    if (refs.length === 0) {
      if (state.until - now < leaseMs / 2) await writePlan(state, undefined, now + leaseMs);
      return listMs;
    }
    const round = makeRound(state.window, refs, Math.min(jobsPerMessage, Math.ceil(targetAhead / 4)));
    state.pending = round;
    await writePlan(state, round, now + leaseMs);
    await settle(state);
    averageJobs = (averageJobs * 7 + refs.length / round.messages.length) / 8;
    return refs.length < room ? 20 : 0;
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
      if (waitMs > 0 && !stopping) await turns.sleep(waitMs);
    }
  })();

  return {
    async stop() {
      stopping = true;
      turns.wake();
      reads.wake();
      await loop;
      await held?.reader;
      await held?.removal;
      // Gives the lease up and keeps the plan: the next feeder skips what this one moved.
      const state = held;
      if (state && state.until > clock.now().getTime())
        await writePlan(state, state.pending, 0, '').catch(() => undefined);
      held = undefined;
    },
  };
}

/** A wait on the clock that `wake` cuts short. */
function napper(clock: Clock): { sleep(ms: number): Promise<void>; wake(): void } {
  let wake: (() => void) | undefined;
  return {
    sleep: (ms) =>
      new Promise((resolve) => {
        const cancel = clock.setTimer(ms, () => {
          wake = undefined;
          resolve();
        });
        wake = () => {
          wake = undefined;
          cancel();
          resolve();
        };
      }),
    wake: () => wake?.(),
  };
}

/**
 * Whether the queue's feeder moved the job at `index` of the `JOBS_FAIR` message `seq` to `JOBS`: a message stays
 * there until all of its jobs moved, and the feeder's lease names the moved ones.
 */
export async function movedByFairFeeder(leases: KV, queue: string, seq: number, index: number): Promise<boolean> {
  const entry = await leases.get(fairFeederLeaseKey(queue));
  if (!entry || entry.operation !== 'PUT') return false;
  const plan = entry.json<FairPlan>();
  const inRound = plan.round?.messages.some((message) => message.refs.some(([s, i]) => s === seq && i === index));
  return inRound === true || isMarked(plan.emitted?.[String(seq)], index);
}
