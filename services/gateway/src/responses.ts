import type { Context } from 'koa';

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

/** Sets status, JSON content type and an already serialised body (the content type is set first, so Koa skips its type lookup). */
export function respondJson(ctx: Context, status: number, body: string): void {
  ctx.status = status;
  ctx.set('Content-Type', JSON_CONTENT_TYPE);
  ctx.body = body;
}
