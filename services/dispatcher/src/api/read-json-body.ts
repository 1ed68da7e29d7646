import type { Context } from 'koa';

/** The largest management API request body, in bytes. */
export const MAX_API_BODY_BYTES = 64 * 1024;

/** A request the API refuses, with its status and error code. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Reads a JSON object body (empty body: `{}`). @throws ApiError 413 or 400 */
export async function readJsonBody(ctx: Context): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_API_BODY_BYTES) throw new ApiError(413, 'too_large', `the body is larger than ${MAX_API_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'invalid_json', 'the body is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ApiError(400, 'invalid_json', 'the body must be a JSON object');
  return parsed as Record<string, unknown>;
}
