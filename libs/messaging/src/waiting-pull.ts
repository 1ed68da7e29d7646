import type { DeliveryInfo, JsMsg, PullOptions } from '@nats-io/jetstream';
import { createInbox, type Msg, type MsgHdrs, type NatsConnection } from '@nats-io/nats-core';

/** One pull request of {@link pullWaiting}: a durable consumer and how many messages it may bring. */
export interface WaitingPullRequest {
  consumer: string;
  batch: number;
}

/** Options for {@link pullWaiting}. */
export interface WaitingPullOptions {
  stream: string;
  requests: WaitingPullRequest[];
  /**
   * `undefined`: bring only what waits now (`no_wait`), the server answers at once. A number: wait that long on
   * the server for messages, and end every request at the first message any of them brings.
   */
  expiresMs?: number;
  /** The JetStream API prefix (default `$JS.API`). */
  apiPrefix?: string;
  /** Ends the wait early (a runner stopping): the requests are cut short as by a first message. */
  signal?: AbortSignal;
}

/** A pull that failed: the server answered with a status other than "no messages", "timeout" or "conflict". */
export class WaitingPullError extends Error {
  constructor(
    readonly code: number,
    description: string,
  ) {
    super(`Pull refused (${code} ${description})`);
    this.name = 'WaitingPullError';
  }
}

/** Status codes that end a pull request without an error: 404 no messages, 408 expired, 409 conflict. */
const ENDS_A_REQUEST = new Set([404, 408, 409]);

/**
 * Pulls messages of durable consumers with JetStream's own pull requests, for what the nats.js `fetch` can't say:
 * `no_wait` (only the messages waiting now, answered at once, so a caller can look at a consumer and move on to
 * the next when it is empty), and one wait shared by several consumers that ends at the first message of any.
 * Every message goes to `onMessage` as it comes, with the usual ack, nak, term and working. Resolves with the
 * number of messages once every request ended: filled, answered with a status, or (with `expiresMs`) cut short by
 * the first message or by the wait running out. A request cut short is ended by draining the reply subscription,
 * so a message the server sent before it saw the unsubscribe still reaches `onMessage`; after that the server
 * sends none (it drops a pull request whose reply subject lost its interest).
 */
export function pullWaiting(
  nc: NatsConnection,
  options: WaitingPullOptions,
  onMessage: (msg: JsMsg) => void,
): Promise<number> {
  const { stream, requests, expiresMs } = options;
  const apiPrefix = options.apiPrefix ?? '$JS.API';
  const inbox = createInbox(inboxPrefixOf(nc));
  const expected = requests.reduce((sum, request) => sum + request.batch, 0);
  let received = 0;
  let ended = 0;
  let finished = false;
  return new Promise<number>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const finish = (error?: Error, drain = false): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      const closing = drain ? subscription.drain() : Promise.resolve(subscription.unsubscribe());
      void closing.then(
        () => (error ? reject(error) : resolve(received)),
        (closeError: unknown) => reject(error ?? closeError),
      );
    };
    const subscription = nc.subscribe(inbox, {
      callback: (error, msg) => {
        if (error) return finish(error);
        const code = statusOf(msg.headers);
        if (code !== undefined) {
          if (!ENDS_A_REQUEST.has(code)) return finish(new WaitingPullError(code, msg.headers?.description ?? ''));
          ended += 1;
          if (ended >= requests.length) finish();
          return;
        }
        received += 1;
        onMessage(new PulledMessage(msg, nc));
        if (expiresMs !== undefined) finish(undefined, true);
        else if (received >= expected) finish();
      },
    });
    for (const request of requests) {
      const pull: Partial<PullOptions> =
        expiresMs === undefined
          ? { batch: request.batch, no_wait: true }
          : { batch: request.batch, expires: expiresMs * 1_000_000 };
      nc.publish(`${apiPrefix}.CONSUMER.MSG.NEXT.${stream}.${request.consumer}`, JSON.stringify(pull), {
        reply: inbox,
      });
    }
    options.signal?.addEventListener('abort', () => finish(undefined, true), { once: true });
    if (options.signal?.aborted) finish(undefined, true);
    // A server that never answers (gone, or a request lost): the subscription is drained after the wait.
    timer = setTimeout(() => finish(undefined, true), (expiresMs ?? 0) + 5000);
  });
}

/** The status code of a JetStream status message (no body, a `NATS/1.0 <code>` line), else undefined. */
function statusOf(headers: MsgHdrs | undefined): number | undefined {
  return headers && headers.code > 0 && headers.code !== 200 ? headers.code : undefined;
}

/** The connection's inbox prefix (a NATS user may only subscribe under its own, see `inboxPrefixFor`). */
function inboxPrefixOf(nc: NatsConnection): string | undefined {
  const options = (nc as { options?: { inboxPrefix?: string } }).options;
  return options?.inboxPrefix;
}

const encoder = new TextEncoder();

/** A message of a pull request, settled on its reply subject as the nats.js messages are. */
class PulledMessage implements JsMsg {
  private settled = false;
  private delivery: DeliveryInfo | undefined;

  constructor(
    private readonly msg: Msg,
    private readonly nc: NatsConnection,
  ) {}

  get info(): DeliveryInfo {
    return (this.delivery ??= parseDeliveryInfo(this.msg.reply ?? ''));
  }
  get redelivered(): boolean {
    return this.info.deliveryCount > 1;
  }
  get seq(): number {
    return this.info.streamSequence;
  }
  get headers(): MsgHdrs | undefined {
    return this.msg.headers;
  }
  get data(): Uint8Array {
    return this.msg.data;
  }
  get subject(): string {
    return this.msg.subject;
  }
  get sid(): number {
    return this.msg.sid;
  }
  get time(): Date {
    return new Date(Math.floor(this.info.timestampNanos / 1e6));
  }
  get timestamp(): string {
    return this.time.toISOString();
  }
  get timestampNanos(): bigint {
    return BigInt(ackTokens(this.msg.reply ?? '')[9]);
  }

  ack(): void {
    this.settle('+ACK');
  }
  nak(millis?: number): void {
    this.settle(millis ? `-NAK ${JSON.stringify({ delay: millis * 1_000_000 })}` : '-NAK');
  }
  working(): void {
    if (!this.settled) this.msg.respond(encoder.encode('+WPI'));
  }
  next(subject: string, options: Partial<PullOptions> = { batch: 1 }): void {
    this.settled = true;
    this.msg.respond(encoder.encode(`+NXT ${JSON.stringify({ batch: options.batch ?? 1, ...options })}`), {
      reply: subject,
    });
  }
  term(reason = ''): void {
    this.settle(reason ? `+TERM ${reason}` : '+TERM');
  }
  async ackAck(options: Partial<{ timeout: number }> = {}): Promise<boolean> {
    if (this.settled || !this.msg.reply) return false;
    this.settled = true;
    await this.nc.request(this.msg.reply, '+ACK', { timeout: options.timeout ?? 5000 });
    return true;
  }
  json<T>(): T {
    return this.msg.json<T>();
  }
  string(): string {
    return this.msg.string();
  }

  private settle(payload: string): void {
    if (this.settled) return;
    this.settled = true;
    this.msg.respond(encoder.encode(payload));
  }
}

/** The tokens of an ack subject in its 12-token form (the 9-token form of older servers padded). */
function ackTokens(reply: string): string[] {
  const tokens = reply.split('.');
  if (tokens.length === 9) tokens.splice(2, 0, '_', '');
  if (tokens.length < 11 || tokens[0] !== '$JS' || tokens[1] !== 'ACK')
    throw new Error(`Not a JetStream delivery: reply subject ${JSON.stringify(reply)}`);
  return tokens;
}

/**
 * `$JS.ACK.<domain>.<account hash>.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>.<timestamp>.<pending>`
 * (and a random token), as nats.js reads it.
 */
function parseDeliveryInfo(reply: string): DeliveryInfo {
  const tokens = ackTokens(reply);
  const deliveryCount = Number.parseInt(tokens[6], 10);
  return {
    domain: tokens[2] === '_' ? '' : tokens[2],
    account_hash: tokens[3],
    stream: tokens[4],
    consumer: tokens[5],
    deliveryCount,
    redelivered: deliveryCount > 1,
    streamSequence: Number.parseInt(tokens[7], 10),
    deliverySequence: Number.parseInt(tokens[8], 10),
    timestampNanos: Number.parseInt(tokens[9], 10),
    pending: Number.parseInt(tokens[10], 10),
  };
}
