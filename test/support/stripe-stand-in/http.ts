import type { IncomingMessage, ServerResponse } from 'node:http';

/** Answers with a JSON body (none for `undefined`) and a Stripe-like `Request-Id`. */
export function send(response: ServerResponse, status: number, body: unknown): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': 'application/json',
    'Request-Id': `req_standin_${Date.now().toString(36)}`,
    'Content-Length': Buffer.byteLength(text),
  });
  response.end(text);
}

/** Reads a request's JSON body; undefined when empty. */
export async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}
