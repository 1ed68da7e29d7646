/**
 * The soak's ledger: waits (bounded) for the mesh to drain, then checks the effect of everything accepted, reading
 * each store once per pass (FerretDB scans anyway, so one scan beats a lookup per id).
 */
import type { Db } from 'mongodb';
import type { ConsumerLag, ServiceHealth } from '../../services/cli/src/commands/status/read-status';
import type { WebhookReceiver } from '../support/webhook-receiver';
import { SOAK_CRON_INTERVAL_MS, type CronTickCounter } from './cron-ticks';
import { soakRepository, type Traffic, type TrafficLedger } from './traffic';

/** One line of the ledger. */
export interface LedgerRow {
  kind: string;
  offered: number;
  accepted: number;
  retried: number;
  duplicates: number;
  /** Accepted and took effect exactly once. */
  applied: number;
  /** Accepted, no effect (yet). */
  missing: string[];
  /** Took effect more than once. */
  twice: string[];
  notes: string;
}

/** What {@link checkLedger} found. */
export interface LedgerResult {
  rows: LedgerRow[];
  services: ServiceHealth[];
  restarts: Record<string, number>;
  faults: string[];
  drainedInSeconds: number | null;
  ticks: { stored: number; storedTwice: number; longestGapSeconds: number };
  passed: boolean;
  failures: string[];
}

interface CheckOptions extends Omit<DrainOptions, 'ledgers'> {
  traffic: Traffic;
  ticks: CronTickCounter;
  services: () => Promise<ServiceHealth[]>;
  restarts: Record<string, number>;
  faults: string[];
}

/** What was accepted, kind by kind (a {@link Traffic}'s ledgers, or the cluster soak's own Stripe bursts). */
export interface KindLedgers {
  stripe: TrafficLedger;
  clerk: TrafficLedger;
  /** GitHub deliveries (the `github` preset), when the traffic sent any. */
  github?: TrafficLedger;
  jobs: TrafficLedger;
  outbound: TrafficLedger;
}

/** Where {@link readRows} reads the effects of one run's traffic. */
export interface EffectOptions {
  db: Db;
  receiver: WebhookReceiver;
  ledgers: KindLedgers;
  /** The run id in every id the traffic made. */
  run: string;
  /**
   * How many times the consumers logged "Webhook event processed" for an event id, over every replica and
   * restart: more than one is an event applied twice, which the inbox row alone (one `processedAt`) cannot show.
   * Without it, a processed inbox row counts once.
   */
  processedCount?: (eventId: string) => number;
}

/** {@link EffectOptions} and how long to wait for the effects. */
export interface DrainOptions extends EffectOptions {
  drainEnds: number;
  /** The durable consumers' lag: the drain waits on it (cheap, in NATS) before reading the stores. */
  consumerLag: () => Promise<ConsumerLag[]>;
}

const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

function row(kind: string, ledger: TrafficLedger, effects: Map<string, number>, notes: string): LedgerRow {
  const missing = ledger.ids.filter((id) => (effects.get(id) ?? 0) === 0);
  const twice = ledger.ids.filter((id) => (effects.get(id) ?? 0) > 1);
  return {
    kind,
    offered: ledger.offered,
    accepted: ledger.accepted,
    retried: ledger.retried,
    duplicates: ledger.duplicates,
    applied: ledger.ids.length - missing.length - twice.length,
    missing,
    twice,
    notes,
  };
}

/** Reads, once per store, the effect of everything the ledgers say was accepted: one row per kind. */
export async function readRows(options: EffectOptions): Promise<LedgerRow[]> {
  const { db, ledgers, receiver, run } = options;
  const inbox = await db
    .collection('webhookEvents')
    .find({}, { projection: { _id: 1, processedAt: 1, abandonedAt: 1, attempts: 1 } })
    .toArray();
  const processed = new Map<string, number>();
  let retriedRows = 0;
  for (const event of inbox) {
    const id = String(event._id);
    // A log line lost to a SIGKILL right after `processedAt` was written still leaves the row: it counts once.
    const times = options.processedCount ? Math.max(1, options.processedCount(id.slice(id.indexOf(':') + 1))) : 1;
    if (event.processedAt && !event.abandonedAt) processed.set(id, times);
    if ((event.attempts ?? 0) > 1) retriedRows += 1;
  }
  const byPrefix = (prefix: string): Map<string, number> =>
    new Map(
      [...processed].filter(([id]) => id.startsWith(prefix)).map(([id, count]) => [id.slice(prefix.length), count]),
    );
  const users = await db
    .collection('users')
    .find({}, { projection: { _id: 1, firstName: 1 } })
    .toArray();
  const userNames = new Map(users.map((user) => [String(user._id), user.firstName as string]));
  const clerkEffects = new Map<string, number>();
  for (const [msgId, count] of byPrefix('clerk:')) {
    const n = msgId.split('_').pop();
    if (userNames.get(`user_soak_${run}_${n}`) === `Soak${n}`) clerkEffects.set(msgId, count);
  }
  const githubRows: LedgerRow[] = [];
  if (ledgers.github) {
    const pullRequests = await db
      .collection('pullRequests')
      .find({ repository: soakRepository(run) }, { projection: { _id: 1, lastDeliveryId: 1 } })
      .toArray();
    const delivered = new Set(pullRequests.map((pr) => String(pr.lastDeliveryId)));
    const githubEffects = new Map([...byPrefix('github:')].filter(([delivery]) => delivered.has(delivery)));
    githubRows.push(
      row(
        'github (preset)',
        ledgers.github,
        githubEffects,
        'inbox row processed and the pull request holds the delivery (app-worker)',
      ),
    );
  }
  const summaries = await db
    .collection('clientSummaries')
    .find({}, { projection: { _id: 1, workspaceId: 1 } })
    .toArray();
  const jobEffects = new Map<string, number>();
  for (const summary of summaries)
    jobEffects.set(String(summary.workspaceId), (jobEffects.get(String(summary.workspaceId)) ?? 0) + 1);
  const delivered = new Map<string, number>();
  const deliveredIds = new Map<string, Set<string>>();
  for (const request of receiver.requests) {
    const match = new RegExp(`"soakRun":"${run}","n":(\\d+)`).exec(request.body);
    if (!match) continue;
    const ids = deliveredIds.get(match[1]) ?? new Set<string>();
    ids.add(request.webhookId);
    deliveredIds.set(match[1], ids);
    delivered.set(match[1], ids.size);
  }
  const outboundRequests = receiver.requests.filter((request) => request.body.includes(`"soakRun":"${run}"`)).length;
  const counted = options.processedCount ? ', "processed" log lines counted per event' : '';
  return [
    row(
      'stripe webhooks',
      ledgers.stripe,
      byPrefix('stripe:'),
      `inbox rows processed${counted}; ${retriedRows} inbox rows needed more than one attempt (all providers, all runs)`,
    ),
    row('clerk webhooks', ledgers.clerk, clerkEffects, "inbox row processed and the user holds the event's data"),
    ...githubRows,
    row('jobs', ledgers.jobs, jobEffects, 'one clientSummaries document per workspace'),
    row(
      'outbound events',
      ledgers.outbound,
      delivered,
      `distinct webhook-id per event reaching the receiver; ${outboundRequests} requests in all (redeliveries of one webhook-id are the receiver's to dedupe)`,
    ),
  ];
}

/**
 * Waits until the consumers have no lag and everything accepted took effect, or `drainEnds` passes; resolves with
 * the rows and how long it took (null: not drained in time).
 */
export async function waitForEffects(
  options: DrainOptions,
): Promise<{ rows: LedgerRow[]; drainedInSeconds: number | null }> {
  const drainStarted = Date.now();
  // Reading the stores is a full scan on FerretDB, which would slow the consumers it waits for: wait on NATS first.
  const busy = (lag: ConsumerLag[]): boolean =>
    lag.some((consumer) => consumer.lag > 0 && !consumer.consumer.startsWith('soak-'));
  while (Date.now() < options.drainEnds && busy(await options.consumerLag().catch(() => [{ lag: 1 } as ConsumerLag])))
    await pause(5000);
  let rows = await readRows(options);
  while (rows.some((r) => r.missing.length > 0) && Date.now() < options.drainEnds) {
    await pause(5000);
    rows = await readRows(options);
  }
  const drainedInSeconds = rows.every((r) => r.missing.length === 0)
    ? Math.round((Date.now() - drainStarted) / 1000)
    : null;
  return { rows, drainedInSeconds };
}

/** The ledger's failures: accepted without effect, applied twice, offered and never accepted. */
export function rowFailures(rows: readonly LedgerRow[]): string[] {
  const failures: string[] = [];
  for (const r of rows) {
    if (r.missing.length > 0)
      failures.push(`${r.kind}: ${r.missing.length} accepted without effect (${r.missing.slice(0, 5).join(', ')}…)`);
    if (r.twice.length > 0)
      failures.push(`${r.kind}: ${r.twice.length} took effect twice (${r.twice.slice(0, 5).join(', ')}…)`);
    if (r.accepted < r.offered) failures.push(`${r.kind}: ${r.offered - r.accepted} offered were never accepted`);
  }
  return failures;
}

/** Waits until everything accepted took effect or the drain time is up, then checks every service is ready. */
export async function checkLedger(options: CheckOptions): Promise<LedgerResult> {
  const { stripe, clerk, jobs, outbound } = options.traffic;
  const { rows, drainedInSeconds } = await waitForEffects({ ...options, ledgers: { stripe, clerk, jobs, outbound } });
  const services = await options.services();
  const arrivals = options.ticks.arrivals;
  const gaps = arrivals.slice(1).map((at, index) => at - arrivals[index]);
  const ticks = {
    stored: options.ticks.stored.size,
    storedTwice: [...options.ticks.stored.values()].filter((sequences) => sequences.size > 1).length,
    longestGapSeconds: Math.round(Math.max(0, ...gaps) / 1000),
  };
  const failures = rowFailures(rows);
  for (const service of services)
    if (service.state !== 'ready') failures.push(`${service.name} is ${service.state} at the end: ${service.detail}`);
  if (ticks.storedTwice > 0) failures.push(`cron: ${ticks.storedTwice} ticks stored twice`);
  if (ticks.stored === 0) failures.push('cron: no tick arrived');
  for (const fault of options.faults) if (fault.includes('FAILED')) failures.push(`fault not injected: ${fault}`);
  return {
    rows,
    services,
    restarts: options.restarts,
    faults: options.faults,
    drainedInSeconds,
    ticks,
    passed: failures.length === 0,
    failures,
  };
}

/** Prints the ledger as a table. */
export function printLedger(result: LedgerResult, write: (line: string) => void): void {
  write('');
  write('SOAK LEDGER');
  write('faults: ' + result.faults.join(' | '));
  write(
    'restarts by the supervisor: ' +
      Object.entries(result.restarts)
        .map(([name, count]) => `${name} ${count}`)
        .join(', '),
  );
  write('');
  write(
    ['KIND'.padEnd(16), 'OFFERED', 'ACCEPTED', 'RETRIED', 'DUPLICATES', 'APPLIED ONCE', 'MISSING', 'TWICE'].join('  '),
  );
  for (const r of result.rows) {
    write(
      [
        r.kind.padEnd(16),
        String(r.offered).padStart(7),
        String(r.accepted).padStart(8),
        String(r.retried).padStart(7),
        String(r.duplicates).padStart(10),
        String(r.applied).padStart(12),
        String(r.missing.length).padStart(7),
        String(r.twice.length).padStart(5),
      ].join('  ') + `   (${r.notes})`,
    );
  }
  write(
    `cron ticks: ${result.ticks.stored} stored (every ${SOAK_CRON_INTERVAL_MS / 1000} s), ${result.ticks.storedTwice} stored twice, longest gap ${result.ticks.longestGapSeconds} s`,
  );
  write(
    `drained ${result.drainedInSeconds === null ? 'NOT within the drain time' : `in ${result.drainedInSeconds} s after the last offer was accepted`}`,
  );
  write('services at the end: ' + result.services.map((service) => `${service.name} ${service.state}`).join(', '));
  write(result.passed ? 'PASSED' : `FAILED:\n  - ${result.failures.join('\n  - ')}`);
}
