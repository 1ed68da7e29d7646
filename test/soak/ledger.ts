/**
 * The soak's ledger: waits (bounded) for the mesh to drain, then checks the effect of everything accepted, reading
 * each store once per pass (FerretDB scans anyway, so one scan beats a lookup per id).
 */
import type { Db } from 'mongodb';
import type { ConsumerLag, ServiceHealth } from '../../services/cli/src/commands/status/read-status';
import type { WebhookReceiver } from '../support/webhook-receiver';
import { SOAK_CRON_INTERVAL_MS, type CronTickCounter } from './cron-ticks';
import type { Traffic, TrafficLedger } from './traffic';

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

interface CheckOptions {
  db: Db;
  receiver: WebhookReceiver;
  traffic: Traffic;
  ticks: CronTickCounter;
  drainEnds: number;
  services: () => Promise<ServiceHealth[]>;
  /** The durable consumers' lag: the drain waits on it (cheap, in NATS) before reading the stores. */
  consumerLag: () => Promise<ConsumerLag[]>;
  restarts: Record<string, number>;
  faults: string[];
  run: string;
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

async function readRows(options: CheckOptions): Promise<LedgerRow[]> {
  const { db, traffic, receiver, run } = options;
  const inbox = await db
    .collection('webhookEvents')
    .find({}, { projection: { _id: 1, processedAt: 1, abandonedAt: 1, attempts: 1 } })
    .toArray();
  const processed = new Map<string, number>();
  let retriedRows = 0;
  for (const event of inbox) {
    if (event.processedAt && !event.abandonedAt) processed.set(String(event._id), 1);
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
  for (const [msgId] of byPrefix('clerk:')) {
    const n = msgId.split('_').pop();
    if (userNames.get(`user_soak_${run}_${n}`) === `Soak${n}`) clerkEffects.set(msgId, 1);
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
  const outboundRequests = receiver.requests.length;
  return [
    row(
      'stripe webhooks',
      traffic.stripe,
      byPrefix('stripe:'),
      `inbox rows processed; ${retriedRows} inbox rows needed more than one attempt (all providers)`,
    ),
    row('clerk webhooks', traffic.clerk, clerkEffects, "inbox row processed and the user holds the event's data"),
    row('jobs', traffic.jobs, jobEffects, 'one clientSummaries document per workspace'),
    row(
      'outbound events',
      traffic.outbound,
      delivered,
      `distinct webhook-id per event reaching the receiver; ${outboundRequests} requests in all (redeliveries of one webhook-id are the receiver's to dedupe)`,
    ),
  ];
}

/** Waits until everything accepted took effect or the drain time is up, then checks every service is ready. */
export async function checkLedger(options: CheckOptions): Promise<LedgerResult> {
  const drainStarted = Date.now();
  // Reading the stores is a full scan on FerretDB, which would slow the consumers it waits for: wait on NATS first.
  const busy = (lag: ConsumerLag[]): boolean =>
    lag.some((consumer) => consumer.lag > 0 && !consumer.consumer.startsWith('soak-'));
  while (Date.now() < options.drainEnds && busy(await options.consumerLag().catch(() => [{ lag: 1 } as ConsumerLag])))
    await pause(5000);
  let rows = await readRows(options);
  while (rows.some((r) => r.missing.length > 0) && Date.now() < options.drainEnds) {
    await pause(15000);
    rows = await readRows(options);
  }
  const drainedInSeconds = rows.every((r) => r.missing.length === 0)
    ? Math.round((Date.now() - drainStarted) / 1000)
    : null;
  const services = await options.services();
  const arrivals = options.ticks.arrivals;
  const gaps = arrivals.slice(1).map((at, index) => at - arrivals[index]);
  const ticks = {
    stored: options.ticks.stored.size,
    storedTwice: [...options.ticks.stored.values()].filter((sequences) => sequences.size > 1).length,
    longestGapSeconds: Math.round(Math.max(0, ...gaps) / 1000),
  };
  const failures: string[] = [];
  for (const r of rows) {
    if (r.missing.length > 0)
      failures.push(`${r.kind}: ${r.missing.length} accepted without effect (${r.missing.slice(0, 5).join(', ')}…)`);
    if (r.twice.length > 0)
      failures.push(`${r.kind}: ${r.twice.length} took effect twice (${r.twice.slice(0, 5).join(', ')}…)`);
    if (r.accepted < r.offered) failures.push(`${r.kind}: ${r.offered - r.accepted} offered were never accepted`);
  }
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
