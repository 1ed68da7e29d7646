import { createServer, request as httpRequest, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import Koa from 'koa';
import { ApiError, MAX_API_BODY_BYTES, readJsonBody } from './read-json-body';

let server: Server;
let port: number;

beforeAll(async () => {
  const app = new Koa();
  app.use(async (ctx) => {
    try {
      ctx.body = { read: await readJsonBody(ctx) };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      ctx.status = error.status;
      ctx.body = { code: error.code };
    }
  });
  server = createServer(app.callback()).listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Sends a POST with exactly these headers and body (chunked when `chunked`), resolves with status and JSON answer. */
function post(
  body: Buffer | string | undefined,
  headers: Record<string, string>,
  chunked = false,
): Promise<{ status: number; answer: { read?: unknown; code?: string } }> {
  return new Promise((resolve, reject) => {
    const raw = body === undefined ? undefined : Buffer.from(body);
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        headers: { ...headers, ...(raw && !chunked ? { 'content-length': String(raw.length) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, answer: JSON.parse(Buffer.concat(chunks).toString() || '{}') }),
        );
      },
    );
    req.on('error', reject);
    if (raw && chunked) for (let at = 0; at < raw.length; at += 16 * 1024) req.write(raw.subarray(at, at + 16 * 1024));
    req.end(chunked ? undefined : raw);
  });
}

const JSON_TYPE = { 'content-type': 'application/json' };

describe('readJsonBody (koa-body)', () => {
  it('reads a JSON object, and no body as {}', async () => {
    expect(
      await post('{"url":"https://example.com/hook"}', { 'content-type': 'application/json; charset=utf-8' }),
    ).toEqual({
      status: 200,
      answer: { read: { url: 'https://example.com/hook' } },
    });
    expect(await post(undefined, {})).toEqual({ status: 200, answer: { read: {} } });
  });

  it('answers 413 to a body over the limit, announced or chunked', async () => {
    const large = JSON.stringify({ description: 'x'.repeat(MAX_API_BODY_BYTES) });
    expect(await post(large, JSON_TYPE)).toEqual({ status: 413, answer: { code: 'too_large' } });
    expect(await post(large, { ...JSON_TYPE, 'transfer-encoding': 'chunked' }, true)).toEqual({
      status: 413,
      answer: { code: 'too_large' },
    });
  });

  it('answers 415 to a body that is not JSON in UTF-8, or is compressed', async () => {
    for (const headers of <Record<string, string>[]>[
      { 'content-type': 'text/plain' },
      {},
      { 'content-type': 'application/json; charset=utf-16' },
      { 'content-type': 'multipart/form-data; boundary=x' },
    ])
      expect({ headers, ...(await post('{"a":1}', headers)) }).toEqual({
        headers,
        status: 415,
        answer: { code: 'unsupported_media_type' },
      });
    expect(await post(gzipSync('{"a":1}'), { ...JSON_TYPE, 'content-encoding': 'gzip' })).toEqual({
      status: 415,
      answer: { code: 'unsupported_media_type' },
    });
  });

  it('answers 400 to malformed JSON, a non-object, a body that is not UTF-8, and a __proto__ key', async () => {
    for (const body of [
      '{"a":',
      '[{"a":1}]',
      'null',
      '"create me"',
      Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
      '{"__proto__":{"admin":true}}',
    ])
      expect({ body: String(body), ...(await post(body, JSON_TYPE)) }).toEqual({
        body: String(body),
        status: 400,
        answer: { code: 'invalid_json' },
      });
  });
});
