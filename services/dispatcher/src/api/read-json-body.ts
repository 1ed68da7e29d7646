import type { Context } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';

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

/** Whether a Content-Type header is JSON in UTF-8 (`application/json`, optionally `; charset=utf-8`). */
function isJsonContentType(header: string | undefined): boolean {
  const [type, ...parameters] = (header ?? '')
    .toLowerCase()
    .split(';')
    .map((part) => part.trim());
  if (type !== 'application/json') return false;
  return parameters.every((parameter) => parameter === '' || parameter === 'charset=utf-8');
}

/** Whether the request carries a body at all (a length above 0, or a chunked one). */
function hasBody(ctx: Context): boolean {
  return ctx.get('transfer-encoding') !== '' || Number(ctx.get('content-length') || 0) > 0;
}

/**
 * `koa-body` reading JSON only, into `ctx.request.body`, with the raw text beside it (`rawBody`, to refuse bodies
 * that were not UTF-8: co-body decodes them with replacement characters). Strict: the body must be an object or an
 * array (`null`, strings, numbers are refused), and `__proto__` keys are refused (co-body's bourne parser).
 */
const parseJson = koaBody({
  json: true,
  jsonTypes: ['application/json'],
  jsonLimit: MAX_API_BODY_BYTES,
  jsonStrict: true,
  includeUnparsed: true,
  text: false,
  urlencoded: false,
  multipart: false,
  patchNode: false,
  patchKoa: true,
  parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
});

/** The ApiError for what co-body threw: its 413 stays a 413, anything else (a body cut short, not JSON) is a 400. */
function bodyError(error: unknown): ApiError {
  const status = (error as { status?: number } | null)?.status;
  if (status === 413) return new ApiError(413, 'too_large', `the body is larger than ${MAX_API_BODY_BYTES} bytes`);
  if (error instanceof SyntaxError) return new ApiError(400, 'invalid_json', 'the body is not JSON');
  return new ApiError(400, 'invalid_request', `the body could not be read: ${(error as Error)?.message ?? error}`);
}

/**
 * Reads a JSON object body (no body: `{}`) with `koa-body`. A body must be `application/json` in UTF-8, not
 * compressed, at most {@link MAX_API_BODY_BYTES} (a larger `Content-Length` is refused before anything is read,
 * a chunked body as soon as it passes the limit). A body refused before it is read is drained, so the client reads
 * the answer instead of a reset.
 * @throws ApiError 413, 415 or 400
 */
export async function readJsonBody(ctx: Context): Promise<Record<string, unknown>> {
  if (!hasBody(ctx)) return {};
  const refuse = (error: ApiError): never => {
    ctx.req.resume();
    throw error;
  };
  if (Number(ctx.get('content-length') || 0) > MAX_API_BODY_BYTES)
    refuse(new ApiError(413, 'too_large', `the body is larger than ${MAX_API_BODY_BYTES} bytes`));
  if (!isJsonContentType(ctx.get('content-type')))
    refuse(new ApiError(415, 'unsupported_media_type', 'the body must be application/json (UTF-8)'));
  if (!['', 'identity'].includes(ctx.get('content-encoding').toLowerCase()))
    refuse(new ApiError(415, 'unsupported_media_type', 'the body must not be compressed'));
  try {
    await parseJson(ctx, () => Promise.resolve());
  } catch (error) {
    throw bodyError(error);
  }
  const { body, rawBody } = ctx.request as { body?: unknown; rawBody?: string };
  if (typeof rawBody === 'string' && rawBody.includes('\uFFFD'))
    throw new ApiError(400, 'invalid_json', 'the body is not UTF-8');
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ApiError(400, 'invalid_json', 'the body must be a JSON object');
  return body as Record<string, unknown>;
}
