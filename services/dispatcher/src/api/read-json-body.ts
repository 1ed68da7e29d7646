import type { Context } from 'koa';

/** The largest management API request body, in bytes. */
export const MAX_API_BODY_BYTES = 64 * 1024;

/** A request the API refuses, with its status and error code. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Whether a Content-Type header is JSON in UTF-8 (`application/json`, optionally `; charset=utf-8`). */
function isJsonContentType(header: string | undefined): boolean {
  const [type, ...parameters] = (header ?? '')
    .toLowerCase()
    .split(';')
    .map((part) => part.trim());
  if (type !== 'application/json') return false;
  return parameters.every((parameter) => parameter === '' || parameter === 'charset=utf-8');
}

/**
 * Collects the body up to {@link MAX_API_BODY_BYTES}. Past it, stops keeping chunks and lets the rest drain (the
 * socket stays open, so the client reads the 413 instead of a reset).
 */
function collectBody(ctx: Context): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = ctx.req;
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= MAX_API_BODY_BYTES) return void chunks.push(chunk);
      cleanup();
      req.resume();
      reject(new ApiError(413, 'too_large', `the body is larger than ${MAX_API_BODY_BYTES} bytes`));
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(new ApiError(400, 'invalid_request', `the body could not be read: ${error.message}`));
    };
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/**
 * Reads a JSON object body (empty body: `{}`). A body must be `application/json` in UTF-8, at most
 * {@link MAX_API_BODY_BYTES} (a larger `Content-Length` is refused before anything is read).
 * @throws ApiError 413, 415 or 400
 */
export async function readJsonBody(ctx: Context): Promise<Record<string, unknown>> {
  if (Number(ctx.get('content-length') || 0) > MAX_API_BODY_BYTES)
    throw new ApiError(413, 'too_large', `the body is larger than ${MAX_API_BODY_BYTES} bytes`);
  const raw = await collectBody(ctx);
  if (raw.length === 0) return {};
  if (!isJsonContentType(ctx.get('content-type')))
    throw new ApiError(415, 'unsupported_media_type', 'the body must be application/json (UTF-8)');
  let text: string;
  try {
    text = utf8.decode(raw).trim();
  } catch {
    throw new ApiError(400, 'invalid_json', 'the body is not UTF-8');
  }
  if (text === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'invalid_json', 'the body is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new ApiError(400, 'invalid_json', 'the body must be a JSON object');
  return parsed as Record<string, unknown>;
}
