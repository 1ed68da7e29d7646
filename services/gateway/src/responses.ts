import type { ServerResponse } from 'node:http';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** The fixed JSON bodies the gateway answers with, serialised once. */
export const RESPONSE_BODIES = {
  received: '{"received":true}',
  ignored: '{"received":true,"ignored":true}',
  notFound: '{"error":"not_found"}',
  tooLarge: '{"error":"too_large"}',
  bodyTimeout: '{"error":"body_timeout"}',
  rateLimited: '{"error":"rate_limited"}',
  unavailable: '{"error":"unavailable"}',
} as const;

/** `{"error":"invalid_event","reason":...}`: a signed event whose id or type can never be stored. */
export function invalidEventBody(reason: 'control_characters' | 'too_long'): string {
  return `{"error":"invalid_event","reason":"${reason}"}`;
}

/** `{"error":"invalid_signature","reason":...}` for a verification failure reason. */
export function invalidSignatureBody(reason: string): string {
  return JSON.stringify({ error: 'invalid_signature', reason });
}

/**
 * Answers with `status` and an already serialised JSON body, its headers written in one go (`extraHeaders` as
 * name, value, name, value…): the webhook port's every answer is one of a few fixed bodies.
 */
export function respondJson(
  response: ServerResponse,
  status: number,
  body: string,
  extraHeaders: readonly string[] = [],
): void {
  response.writeHead(status, [
    'Content-Type',
    JSON_CONTENT_TYPE,
    'Content-Length',
    String(Buffer.byteLength(body)),
    ...extraHeaders,
  ]);
  response.end(body);
}
