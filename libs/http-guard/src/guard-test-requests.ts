import { request } from 'node:http';

/** What a test request got back. */
export interface GuardTestAnswer {
  readonly status: number;
  readonly body: string;
  readonly allow?: string;
}

/** Sends one request to 127.0.0.1:`port`, with `Authorization: Bearer <token>` when a token is given. */
export function sendGuardTestRequest(
  port: number,
  method: string,
  path: string,
  token?: string,
): Promise<GuardTestAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path, headers: token ? { authorization: `Bearer ${token}` } : {} },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body, allow: res.headers.allow as string | undefined }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Other spellings of `/api/items` and `/healthz`: each must be refused 404 before any route or credential check. */
export const OTHER_SPELLINGS = [
  '/API/items',
  '/Api/Items',
  '/api/ITEMS',
  '/%61pi/items',
  '/api/item%73',
  '/api/items/',
  '//api/items',
  '/api//items',
  '/api;x=1/items',
  '/api/items;x=1',
  '/x/../api/items',
  '/./api/items',
  '/api%2Fitems',
  '/HEALTHZ',
  '/healthz/',
] as const;
