/**
 * A customer's webhook endpoint for outbound tests: a real HTTP server on loopback (a free port), recording every
 * request and verifying each signature with the `standardwebhooks` library, the way a receiver would. What it
 * answers is scripted per request. Waiting is event-driven: a waiter resolves on the request that satisfies it.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request as received. */
export interface ReceivedRequest {
  webhookId: string;
  timestamp: string;
  signature: string;
  body: string;
  headers: IncomingMessage['headers'];
  /** `performance.now()` when it arrived. */
  at: number;
  /** Which of the receiver's secrets verified it (index), or -1 when none did. */
  verifiedWith: number;
  /** 1 for the first request of this webhook-id. */
  nth: number;
}

/** What to answer. */
export interface ScriptedResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/** Decides the answer to a request (default: 200). */
export type Responder = (request: ReceivedRequest) => ScriptedResponse | Promise<ScriptedResponse>;

/** A webhook receiver on `http://127.0.0.1:<port>/hook`. */
export class WebhookReceiver {
  /** Every request, in arrival order (the raw count, duplicates included). */
  readonly requests: ReceivedRequest[] = [];
  /** Webhook ids answered 2xx at least once ("in effect"). */
  readonly accepted = new Set<string>();
  private readonly perId = new Map<string, number>();
  private readonly waiters = new Set<() => void>();
  private server?: Server;
  private port = 0;

  constructor(
    private secrets: string[] = [],
    private responder: Responder = () => ({ status: 200 }),
  ) {}

  /** Starts listening on a free loopback port. */
  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        void this.handle(request, Buffer.concat(chunks).toString('utf8')).then((answer) => {
          response.writeHead(answer.status, { 'content-type': 'text/plain', ...(answer.headers ?? {}) });
          response.end(answer.body ?? 'ok');
        });
      });
    });
    this.server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** The endpoint URL. */
  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  /** Changes the secrets signatures are verified with (e.g. after a rotation). */
  setSecrets(secrets: string[]): void {
    this.secrets = secrets;
  }

  /** Changes what the receiver answers from now on. */
  respondWith(responder: Responder): void {
    this.responder = responder;
  }

  /** Requests of one webhook id. */
  requestsOf(webhookId: string): ReceivedRequest[] {
    return this.requests.filter((request) => request.webhookId === webhookId);
  }

  /** Resolves once `condition()` holds, re-checked after every request; rejects after `timeoutMs`. */
  waitUntil(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!condition()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(
          new Error(
            `Timed out after ${timeoutMs} ms waiting for ${what}; ${this.requests.length} requests, ${this.accepted.size} accepted`,
          ),
        );
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  /** Resolves once `count` distinct webhook ids were accepted. */
  waitForAccepted(count: number, timeoutMs: number): Promise<void> {
    return this.waitUntil(() => this.accepted.size >= count, timeoutMs, `${count} accepted webhooks at ${this.url}`);
  }

  /** Stops listening and closes open connections. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private async handle(request: IncomingMessage, body: string): Promise<ScriptedResponse> {
    const header = (name: string): string => String(request.headers[name] ?? '');
    const webhookId = header('webhook-id');
    const nth = (this.perId.get(webhookId) ?? 0) + 1;
    this.perId.set(webhookId, nth);
    const received: ReceivedRequest = {
      webhookId,
      timestamp: header('webhook-timestamp'),
      signature: header('webhook-signature'),
      body,
      headers: request.headers,
      at: performance.now(),
      verifiedWith: this.verify(body, webhookId, header('webhook-timestamp'), header('webhook-signature')),
      nth,
    };
    this.requests.push(received);
    let answer: ScriptedResponse;
    try {
      answer = await this.responder(received);
    } catch (error) {
      answer = { status: 500, body: String(error) };
    }
    if (answer.status >= 200 && answer.status < 300) this.accepted.add(webhookId);
    for (const waiter of [...this.waiters]) waiter();
    return answer;
  }

  private verify(body: string, id: string, timestamp: string, signature: string): number {
    return this.secrets.findIndex((secret) => {
      try {
        new Webhook(secret).verify(body, {
          'webhook-id': id,
          'webhook-timestamp': timestamp,
          'webhook-signature': signature,
        });
        return true;
      } catch {
        return false;
      }
    });
  }
}
