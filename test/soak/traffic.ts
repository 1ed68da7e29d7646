/**
 * The soak's traffic, each kind with its own ledger: what was offered, what the mesh accepted (a 200, a returned
 * `add` or `send`), and, read back at the end, what took effect. Each producer behaves as the real one does:
 * a provider retries a webhook until it gets a 200 (and now and then delivers one twice), product code retries an
 * `add` or `send` that failed with the same deduplication or idempotency key.
 */
import type { Db } from 'mongodb';
import { createJobProducer } from '@berth/jobs';
import type { BerthLogger } from '@berth/logger';
import type { Messaging } from '@berth/messaging';
import { createOutboundSender } from '@berth/outbound';
import { WebhookSender } from '../support/webhook-senders';

/** One kind of traffic's count. */
export interface TrafficLedger {
  offered: number;
  accepted: number;
  /** Tries that failed and were tried again (503s, refused connections, timeouts during the faults). */
  retried: number;
  /** Second deliveries of something already accepted (a provider's duplicate). */
  duplicates: number;
  /** Ids of what was accepted, to check the effect of each. */
  readonly ids: string[];
}

/** A gateway answer that retrying cannot change (4xx other than 408 and 429). */
class Refused {
  constructor(readonly status: number) {}
}

/** 200: accepted; 408, 429 and 5xx: try again; any other 4xx: refused. */
function answerOf(status: number): boolean | Refused {
  if (status === 200) return true;
  return status >= 400 && status < 500 && status !== 408 && status !== 429 ? new Refused(status) : false;
}

const newLedger = (): TrafficLedger => ({ offered: 0, accepted: 0, retried: 0, duplicates: 0, ids: [] });

/** Options of {@link Traffic}. */
export interface TrafficOptions {
  gatewayUrl: string;
  secrets: { stripe: string; clerk: string };
  messaging: Messaging;
  logger: BerthLogger;
  /** The soak's run id, in every id it makes. */
  run: string;
  /** Until when a rejected try is tried again (a provider retries for days; the soak until its drain ends). */
  retryUntil: () => number;
  outbound: { workspaceId: string; eventType: string };
  /**
   * Send GitHub deliveries too (`pull_request.opened`, one pull request per round), to the gateway's `github`
   * provider (a `WEBHOOK_PROVIDERS` entry of the `github` preset with this secret), handled by the app-worker.
   */
  github?: { secret: string };
  /** Leave Stripe out of the rounds (the cluster soak sends its Stripe events in paced bursts of its own). */
  withoutStripe?: boolean;
}

/** The repository of the soak's pull requests (`pullRequests` `_id` `<repository>#<n>`). */
export const soakRepository = (run: string): string => `berth-soak/${run}`;

/** The GitHub delivery id of round `n`. */
export const soakDelivery = (run: string, n: number): string => `gh_soak_${run}_${n}`;

const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** Mixed traffic against one mesh. */
export class Traffic {
  readonly stripe = newLedger();
  readonly clerk = newLedger();
  readonly github = newLedger();
  readonly jobs = newLedger();
  readonly outbound = newLedger();
  /**
   * Jobs whose `add` answered "deduplicated" (an id already claimed): each soak job has an id of its own, so only
   * an earlier failed `add` of the same job can have claimed it.
   */
  readonly jobsDeduplicated: string[] = [];
  private readonly sender: WebhookSender;
  private readonly jobProducer;
  private readonly send;
  private readonly inFlight = new Set<Promise<void>>();
  private sequence = 0;

  constructor(private readonly options: TrafficOptions) {
    this.sender = new WebhookSender(options.gatewayUrl, options.secrets);
    this.jobProducer = createJobProducer({ messaging: options.messaging, logger: options.logger });
    this.send = createOutboundSender({ js: options.messaging.js, timeoutMs: 5000 });
  }

  /** Offers one of each kind (called once per tick by the soak). */
  offerRound(): void {
    this.sequence += 1;
    const n = this.sequence;
    if (!this.options.withoutStripe) this.track(this.offerStripe(n));
    this.track(this.offerClerk(n));
    if (this.options.github) this.track(this.offerGithub(n, this.options.github.secret));
    this.track(this.offerJob(n));
    this.track(this.offerOutbound(n));
  }

  /** Resolves when every offer was accepted or gave up. */
  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /** The workspace ids the jobs summarise (created before the soak starts). */
  static workspaceId(run: string, n: number): string {
    return `soak_${run}_ws_${n}`;
  }

  private track(work: Promise<void>): void {
    const tracked = work
      .catch((error: unknown) => this.options.logger.error({ err: error }, 'soak traffic failed'))
      .finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  /**
   * Tries `attempt` until it says accepted or retrying is over; true when accepted. An answer no retry can change
   * (`refused`: a signature or request the gateway rejects) ends the offer at once, logged, so a misconfigured soak
   * fails in the ledger ("offered were never accepted") instead of retrying until the drain ends.
   */
  private async untilAccepted(ledger: TrafficLedger, attempt: () => Promise<boolean | Refused>): Promise<boolean> {
    ledger.offered += 1;
    for (;;) {
      let accepted: boolean | Refused = false;
      try {
        accepted = await attempt();
      } catch {
        accepted = false;
      }
      if (accepted instanceof Refused) {
        this.options.logger.error({ status: accepted.status }, 'soak offer refused; not retried');
        return false;
      }
      if (accepted) {
        ledger.accepted += 1;
        return true;
      }
      if (Date.now() > this.options.retryUntil()) return false;
      ledger.retried += 1;
      await pause(2000);
    }
  }

  private async offerStripe(n: number): Promise<void> {
    const eventId = `evt_soak_${this.options.run}_${n}`;
    const payload = JSON.stringify({
      id: eventId,
      object: 'event',
      type: 'customer.subscription.updated',
      created: Math.floor(Date.now() / 1000),
      data: { object: { id: 'sub_demo', object: 'subscription', customer: 'cus_demo', status: 'active' } },
    });
    const post = async (): Promise<boolean | Refused> => answerOf((await this.sender.sendStripe(payload)).status);
    if (!(await this.untilAccepted(this.stripe, post))) return;
    this.stripe.ids.push(eventId);
    if (n % 10 === 0) {
      this.stripe.duplicates += 1;
      await post().catch(() => false);
    }
  }

  private async offerClerk(n: number): Promise<void> {
    const msgId = `msg_soak_${this.options.run}_${n}`;
    const updatedAt = Date.now();
    const event = {
      type: 'user.updated',
      timestamp: updatedAt,
      data: {
        id: `user_soak_${this.options.run}_${n}`,
        object: 'user',
        first_name: `Soak${n}`,
        last_name: 'Soak',
        email_addresses: [],
        created_at: updatedAt - 1000,
        updated_at: updatedAt,
      },
    };
    const post = async (): Promise<boolean | Refused> => answerOf((await this.sender.sendClerk(msgId, event)).status);
    if (!(await this.untilAccepted(this.clerk, post))) return;
    this.clerk.ids.push(msgId);
    if (n % 10 === 5) {
      this.clerk.duplicates += 1;
      await post().catch(() => false);
    }
  }

  private async offerGithub(n: number, secret: string): Promise<void> {
    const delivery = soakDelivery(this.options.run, n);
    const body = {
      action: 'opened',
      number: n,
      pull_request: { title: `Soak ${n}`, user: { login: 'berth-soak' } },
      repository: { full_name: soakRepository(this.options.run) },
    };
    const post = async (): Promise<boolean | Refused> =>
      answerOf((await this.sender.sendGithub(delivery, 'pull_request', body, secret)).status);
    if (!(await this.untilAccepted(this.github, post))) return;
    this.github.ids.push(delivery);
    if (n % 10 === 3) {
      this.github.duplicates += 1;
      await post().catch(() => false);
    }
  }

  private async offerJob(n: number): Promise<void> {
    const workspaceId = Traffic.workspaceId(this.options.run, n);
    const add = async (): Promise<boolean> => {
      // Every other job is keyed at `add`, so it is fair by default: it goes through JOBS_FAIR and the feeder; one job
      // in four takes a start of the run's rate limit, so workers hold blocks of starts through the faults.
      const flow =
        n % 2 === 0
          ? { concurrency: { key: workspaceId, limit: 1 } }
          : n % 4 === 1
            ? { rateLimit: { key: `soak-rate-${this.options.run}`, limit: 20, perMs: 1000 } }
            : {};
      const added = await this.jobProducer.add(
        'client-queue',
        'SendClientSummaryJob',
        { workspaceId },
        { deduplicationId: workspaceId, ...flow },
      );
      if (added.deduplicated) this.jobsDeduplicated.push(workspaceId);
      return true;
    };
    if (await this.untilAccepted(this.jobs, add)) this.jobs.ids.push(workspaceId);
  }

  private async offerOutbound(n: number): Promise<void> {
    const { workspaceId, eventType } = this.options.outbound;
    const send = async (): Promise<boolean> => {
      await this.send(
        workspaceId,
        eventType,
        { soakRun: this.options.run, n },
        { idempotencyKey: `soak_${this.options.run}_${n}` },
      );
      return true;
    };
    if (await this.untilAccepted(this.outbound, send)) this.outbound.ids.push(String(n));
  }
}

/** Creates the workspaces the jobs summarise, so each job has an effect to check. */
export async function createSoakWorkspaces(db: Db, run: string, count: number): Promise<void> {
  const workspaces = db.collection<{ _id: string; name: string; deletedAt: null }>('workspaces');
  for (let start = 1; start <= count; start += 500) {
    const batch = Array.from({ length: Math.min(500, count - start + 1) }, (_, index) => ({
      _id: Traffic.workspaceId(run, start + index),
      name: `Soak ${start + index}`,
      deletedAt: null,
    }));
    await workspaces.insertMany(batch);
  }
}
