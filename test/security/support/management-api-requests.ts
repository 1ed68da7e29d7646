/**
 * The hostile requests of the management API campaign, generated from a seed: tokens that are missing, wrong or
 * almost right; every path the router serves spelled in other cases, encodings, with extra slashes and dot segments;
 * every method; bodies that are oversize, deeply nested, truncated, not UTF-8, or sent under the wrong content type;
 * and, with the right token, request bodies and queries the API must refuse. None of them may succeed.
 */

/** One request of the campaign. */
export interface HostileRequest {
  /** What the request tries, for the failure message. */
  readonly kind: string;
  readonly method: string;
  /** The raw request target, sent as is (no normalisation by the client). */
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: Buffer;
}

/** A small seeded PRNG (mulberry32), so that a failing campaign can be replayed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ROUTES = [
  '/v1/endpoints',
  '/v1/endpoints/ep_0123456789abcdef',
  '/v1/endpoints/ep_0123456789abcdef/rotate-secret',
  '/v1/endpoints/ep_0123456789abcdef/disable',
  '/v1/endpoints/ep_0123456789abcdef/enable',
  '/v1/endpoints/ep_0123456789abcdef/recover',
  '/v1/deliveries',
  '/v1/deliveries/dl_0123456789abcdef',
  '/v1/deliveries/dl_0123456789abcdef/replay',
  '/v1',
  '/v2/endpoints',
  '/admin',
];

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'];

type Pick = <T>(items: readonly T[]) => T;

function randomCase(path: string, random: () => number): string {
  return [...path].map((char) => (random() < 0.5 ? char.toUpperCase() : char.toLowerCase())).join('');
}

function percentEncodeOne(path: string, random: () => number): string {
  const letters = [...path].map((char, index) => ({ char, index })).filter(({ char }) => /[A-Za-z0-9-]/.test(char));
  const { char, index } = letters[Math.floor(random() * letters.length)];
  const hex = char.charCodeAt(0).toString(16);
  return `${path.slice(0, index)}%${random() < 0.5 ? hex.toUpperCase() : hex}${path.slice(index + 1)}`;
}

/** The spellings of a route the router might serve although they differ from it byte for byte. */
function pathVariant(route: string, random: () => number, pick: Pick): { trick: string; path: string } {
  const tricks: [string, (path: string) => string][] = [
    ['exact', (path) => path],
    ['upper case', (path) => path.toUpperCase()],
    ['mixed case', (path) => randomCase(path, random)],
    ['trailing slash', (path) => `${path}/`],
    ['leading double slash', (path) => `/${path}`],
    ['inner double slash', (path) => path.replace(/\/(?=[^/]*$)/, '//')],
    ['percent-encoded character', (path) => percentEncodeOne(path, random)],
    ['encoded slash', (path) => path.replace(/\/(?=[^/]*$)/, '%2F')],
    ['dot segment', (path) => `/healthz/..${path}`],
    ['current-directory segment', (path) => path.replace('/v1', '/./v1')],
    ['matrix parameter', (path) => `${path};x=1`],
    ['query string', (path) => `${path}?workspaceId=ws_campaign&limit=1`],
    ['absolute-form target', (path) => `http://127.0.0.1${path}`],
    ['upper case and trailing slash', (path) => `${path.toUpperCase()}/`],
    ['upper case percent-encoded', (path) => percentEncodeOne(path.toUpperCase(), random)],
  ];
  const [trick, apply] = pick(tricks);
  return { trick, path: apply(route) };
}

/** Authorization headers that are never the token: none, wrong, or a character away from it. */
function badAuthorization(token: string, pick: Pick): { trick: string; value?: string } {
  const flipLast = token.slice(0, -1) + (token.endsWith('a') ? 'b' : 'a');
  const variants: { trick: string; value?: string }[] = [
    { trick: 'no header' },
    { trick: 'empty header', value: '' },
    { trick: 'scheme only', value: 'Bearer' },
    { trick: 'wrong token', value: 'Bearer not-the-token-at-all-000' },
    { trick: 'token minus its last character', value: `Bearer ${token.slice(0, -1)}` },
    { trick: 'token plus a character', value: `Bearer ${token}x` },
    { trick: 'last character changed', value: `Bearer ${flipLast}` },
    { trick: 'token in upper case', value: `Bearer ${token.toUpperCase()}` },
    { trick: 'token without scheme', value: token },
    { trick: 'basic scheme', value: `Basic ${Buffer.from(`admin:${token}`).toString('base64')}` },
    { trick: 'token twice', value: `Bearer ${token},Bearer ${token}` },
    { trick: 'token prefix', value: `Bearer ${token.slice(0, 8)}` },
    { trick: 'other scheme', value: `Token ${token}` },
    { trick: 'very long token', value: `Bearer ${'A'.repeat(6000)}` },
  ];
  return pick(variants);
}

/** A JSON text nested `depth` levels deep. */
export function deepJson(depth: number, inner = '1'): string {
  return '{"a":'.repeat(depth) + inner + '}'.repeat(depth);
}

/** Bodies with their content type: the one valid create body (which must still be refused without the token), and junk. */
function hostileBody(random: () => number, pick: Pick): { trick: string; contentType?: string; body?: Buffer } {
  const valid = JSON.stringify({ workspaceId: 'ws_campaign', url: 'https://attacker.example/hook' });
  const variants: (() => { trick: string; contentType?: string; body?: Buffer })[] = [
    () => ({ trick: 'no body' }),
    () => ({ trick: 'valid create body', contentType: 'application/json', body: Buffer.from(valid) }),
    () => ({ trick: 'valid body as text/plain', contentType: 'text/plain', body: Buffer.from(valid) }),
    () => ({
      trick: 'form body',
      contentType: 'application/x-www-form-urlencoded',
      body: Buffer.from('workspaceId=ws_campaign&url=https://attacker.example/hook'),
    }),
    () => ({
      trick: 'deep JSON',
      contentType: 'application/json',
      body: Buffer.from(deepJson(5000 + Math.floor(random() * 5000))),
    }),
    () => ({
      trick: 'deep JSON array',
      contentType: 'application/json',
      body: Buffer.from('['.repeat(20_000) + ']'.repeat(20_000)),
    }),
    () => ({
      trick: 'oversize JSON',
      contentType: 'application/json',
      body: Buffer.from(
        JSON.stringify({
          workspaceId: 'ws_campaign',
          url: 'https://attacker.example/hook',
          description: 'x'.repeat(70_000),
        }),
      ),
    }),
    () => ({
      trick: 'truncated JSON',
      contentType: 'application/json',
      body: Buffer.from(valid.slice(0, Math.floor(random() * valid.length))),
    }),
    () => ({
      trick: 'invalid UTF-8',
      contentType: 'application/json; charset=utf-8',
      body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
    }),
    () => ({
      trick: 'UTF-16 JSON',
      contentType: 'application/json; charset=utf-16le',
      body: Buffer.from(valid, 'utf16le'),
    }),
  ];
  return pick(variants)();
}

/** Bodies and queries the API must refuse even from the token's holder (nothing valid enough to create anything). */
function authenticatedHostile(
  random: () => number,
  pick: Pick,
): { trick: string; method: string; path: string; contentType?: string; body?: Buffer } {
  const valid = { workspaceId: 'ws_campaign', url: 'https://attacker.example/hook' };
  const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
  const create = (trick: string, body: Buffer, contentType = 'application/json') => ({
    trick,
    method: 'POST',
    path: '/v1/endpoints',
    contentType,
    body,
  });
  const variants: (() => { trick: string; method: string; path: string; contentType?: string; body?: Buffer })[] = [
    () => create('valid body as text/plain', json(valid), 'text/plain'),
    () => create('valid body without content type', json(valid), ''),
    () => create('valid body as multipart', json(valid), 'multipart/form-data; boundary=x'),
    () => create('valid body as application/jsonp', json(valid), 'application/jsonp'),
    () =>
      create(
        'deep JSON in a field',
        Buffer.from(
          `{"workspaceId":"ws_campaign","url":"https://attacker.example/hook","eventTypes":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
        ),
      ),
    () => create('deep JSON object', Buffer.from(deepJson(10_000))),
    () =>
      create('oversize body', json({ ...valid, description: 'x'.repeat(65 * 1024 + Math.floor(random() * 200_000)) })),
    () => create('truncated JSON', json(valid).subarray(0, Math.floor(random() * 40))),
    () => create('array body', json([valid])),
    () => create('null body', Buffer.from('null')),
    () => create('string body', json('create me')),
    () => create('unknown field', json({ ...valid, admin: true })),
    () =>
      create(
        'prototype key',
        Buffer.from('{"workspaceId":"ws_campaign","url":"https://attacker.example/hook","__proto__":{"admin":true}}'),
      ),
    () => create('constructor key', json({ ...valid, constructor: { prototype: { admin: true } } })),
    () => create('javascript URL', json({ ...valid, url: 'javascript:alert(1)' })),
    () => create('file URL', json({ ...valid, url: 'file:///etc/passwd' })),
    () => create('URL with credentials', json({ ...valid, url: 'https://user:pass@attacker.example/hook' })),
    () => create('URL with CR/LF', json({ ...valid, url: 'https://attacker.example/\r\nX-Injected: 1' })),
    () => create('workspace id with operator', json({ ...valid, workspaceId: { $ne: null } })),
    () => create('workspace id with control characters', json({ ...valid, workspaceId: 'ws\u0000\u001b[31m' })),
    () => create('weak secret', json({ ...valid, secret: 'whsec_x' })),
    () => create('huge rate limit', json({ ...valid, rateLimitPerSecond: 1e12 })),
    () => create('event type with newline', json({ ...valid, eventTypes: ['invoice.paid\nx'] })),
    () => ({
      trick: 'update of an unknown endpoint',
      method: 'PATCH',
      path: '/v1/endpoints/ep_unknown',
      contentType: 'application/json',
      body: json({ url: 'https://attacker.example/hook' }),
    }),
    () => ({
      trick: 'rotate an unknown endpoint',
      method: 'POST',
      path: '/v1/endpoints/ep_unknown/rotate-secret',
      contentType: 'application/json',
      body: json({}),
    }),
    () => ({ trick: 'delete an unknown endpoint', method: 'DELETE', path: '/v1/endpoints/ep_unknown' }),
    () => ({ trick: 'replay an unknown delivery', method: 'POST', path: '/v1/deliveries/dl_unknown/replay' }),
    () => ({
      trick: 'recover with a bad date',
      method: 'POST',
      path: '/v1/endpoints/ep_unknown/recover',
      contentType: 'application/json',
      body: json({ since: 'yesterday' }),
    }),
    () => ({
      trick: 'deliveries with a bad limit',
      method: 'GET',
      path: `/v1/deliveries?limit=${pick(['0', '-1', 'abc', '1e9', '99999999'])}`,
    }),
    () => ({ trick: 'deliveries with a bad status', method: 'GET', path: '/v1/deliveries?status=%00' }),
    () => ({ trick: 'deliveries with a bad date', method: 'GET', path: '/v1/deliveries?since=not-a-date' }),
    () => ({
      trick: 'unknown route',
      method: pick(['GET', 'POST', 'PUT']),
      path: pick(['/v1/secrets', '/v1/endpoints/ep_x/secret', '/v1/admin', '/v1/endpoints/ep_x/../../admin']),
    }),
    () => ({ trick: 'unsupported method', method: pick(['PUT', 'TRACE']), path: '/v1/endpoints' }),
  ];
  return pick(variants)();
}

/**
 * `count` hostile requests: about four in five without the token (path, method and body tricks), the rest with it
 * (bodies and queries to refuse). Deterministic for a given seed.
 */
export function generateManagementApiRequests(token: string, count: number, seed: number): HostileRequest[] {
  const random = seededRandom(seed);
  const pick: Pick = (items) => items[Math.floor(random() * items.length)];
  const requests: HostileRequest[] = [];
  for (let index = 0; index < count; index++) {
    if (random() < 0.8) {
      const { trick: pathTrick, path } = pathVariant(pick(ROUTES), random, pick);
      const auth = badAuthorization(token, pick);
      const method = pick(METHODS);
      const body = method === 'GET' || method === 'HEAD' ? { trick: 'no body' } : hostileBody(random, pick);
      const headers: Record<string, string> = {};
      if (auth.value !== undefined) headers.authorization = auth.value;
      if (body.contentType !== undefined) headers['content-type'] = body.contentType;
      requests.push({
        kind: `unauthenticated: ${auth.trick}, ${pathTrick}, ${method}, ${body.trick}`,
        method,
        path,
        headers,
        body: body.body,
      });
    } else {
      const hostile = authenticatedHostile(random, pick);
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (hostile.contentType) headers['content-type'] = hostile.contentType;
      requests.push({
        kind: `authenticated: ${hostile.trick}`,
        method: hostile.method,
        path: hostile.path,
        headers,
        body: hostile.body,
      });
    }
  }
  return requests;
}
