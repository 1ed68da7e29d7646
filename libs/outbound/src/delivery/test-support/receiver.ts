import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type RequestListener,
  type ServerResponse,
} from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** One request a {@link Receiver} got, body read in full. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A real HTTP (or HTTPS) server on 127.0.0.1 and a free port, standing in for a customer's webhook endpoint in tests. */
export interface Receiver {
  readonly url: string;
  readonly port: number;
  /** Every request received so far, in order. */
  readonly requests: readonly ReceivedRequest[];
  /** Resolves with the next request (or the earliest not yet awaited), without sleeping. */
  nextRequest(): Promise<ReceivedRequest>;
  /** Closes the server and every connection still open, answered or not. */
  close(): Promise<void>;
}

/** How a receiver answers; by default `200 {"ok":true}`. */
export type ReceiverHandler = (request: ReceivedRequest, response: ServerResponse) => void;

/** Options of {@link startReceiver}. */
export interface ReceiverOptions {
  /** Serve HTTPS with this certificate and key (PEM); the URL is then `https://127.0.0.1:<port>`. */
  tls?: { cert: string; key: string };
}

/** Starts a receiver. Tests must `close()` it, or Jest reports the open handle. */
export async function startReceiver(
  handler: ReceiverHandler = (_request, response) => response.end('{"ok":true}'),
  options: ReceiverOptions = {},
): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const waiting: Array<(request: ReceivedRequest) => void> = [];
  let handedOut = 0;
  const listener: RequestListener = (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(received);
      waiting.shift()?.(received);
      handler(received, res);
    });
  };
  const server = options.tls ? createTlsServer(options.tls, listener) : createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    requests,
    nextRequest: () => {
      const index = handedOut++;
      const ready = requests[index];
      return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
