/**
 * The route campaign's requests, generated from the routes an app really serves: every route of every @koa/router
 * found in a Koa app's middleware (a router's `routes()` carries `.router`; the shared guard carries `.routers`), or
 * every route a `nodeGuard` listener lists (`.routes`), each
 * spelled every way a router, a proxy or a path check might read differently from another: case, percent-encoded
 * letters, doubled and trailing slashes, `;` parameters, `.` and `..` segments, encoded slashes and dots, and a
 * backslash. A new route is covered as soon as it is mounted.
 */
import { request, type Agent } from 'node:http';
import type Koa from 'koa';
import type { NodeGuard } from '@berth/http-guard';

/** One route as a router holds it. */
export interface CampaignRoute {
  /** `GET`, `POST`, …; `HEAD` only when it is the route's only method. */
  readonly method: string;
  /** The pattern, prefix included (`/api/webhooks/events/:provider/:eventId`). */
  readonly pattern: string;
}

interface RouterLike {
  stack: { path: string | RegExp; methods: string[] }[];
}

/** Every route `app` serves (the routers a Koa app mounts, or a node guard's routes), in order, each method apart. */
export function routesOf(app: Koa | NodeGuard): CampaignRoute[] {
  const routes: CampaignRoute[] = [];
  const seen = new Set<string>();
  const add = (methods: readonly string[], pattern: string): void => {
    // CONNECT never reaches an app: Node's server hands it to its 'connect' listeners (none: it closes).
    const requested = methods.filter((method) => method !== 'HEAD' && method !== 'CONNECT');
    for (const method of requested.length > 0 ? requested : methods) {
      const key = `${method} ${pattern}`;
      if (!seen.has(key)) routes.push({ method, pattern });
      seen.add(key);
    }
  };
  if ('routes' in app) {
    for (const route of app.routes) add(route.methods, route.path);
    return routes;
  }
  for (const middleware of app.middleware as unknown as { router?: RouterLike; routers?: readonly RouterLike[] }[]) {
    for (const router of [middleware.router, ...(middleware.routers ?? [])]) {
      for (const layer of router?.stack ?? []) {
        if (typeof layer.path !== 'string') throw new Error(`a route by regular expression: ${String(layer.path)}`);
        add(layer.methods, layer.path);
      }
    }
  }
  return routes;
}

interface Segment {
  readonly text: string;
  readonly isStatic: boolean;
}

/** The pattern's segments with every parameter filled (`:name` from `samples`, else `x1`; `*name` with `x1`). */
function segmentsOf(pattern: string, samples: Readonly<Record<string, string>>): Segment[] {
  return pattern
    .replace(/[{}]/g, '')
    .split('/')
    .slice(1)
    .map((part) => {
      if (!/[:*]/.test(part)) return { text: part, isStatic: true };
      return {
        text: part.replace(/[:*]([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(samples[name] ?? 'x1')),
        isStatic: false,
      };
    });
}

const join = (segments: readonly string[]): string => `/${segments.join('/')}`;

function mapStatic(segments: readonly Segment[], change: (text: string, index: number) => string): string {
  let index = 0;
  return join(segments.map((segment) => (segment.isStatic ? change(segment.text, index++) : segment.text)));
}

function encodeFirstLetter(text: string, upperHex: boolean): string {
  const at = text.search(/[A-Za-z]/);
  if (at < 0) return text;
  const hex = text.charCodeAt(at).toString(16);
  return `${text.slice(0, at)}%${upperHex ? hex.toUpperCase() : hex}${text.slice(at + 1)}`;
}

/** One request of the campaign. */
export interface CampaignRequest {
  readonly app: string;
  readonly route: CampaignRoute;
  /** What was done to the route's path (`upper`, `double-slash-inner`, …), with `+wrong-token` when one was sent. */
  readonly variant: string;
  readonly method: string;
  /** The raw request target, sent as is. */
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/** Options of {@link campaignRequests}. */
export interface CampaignOptions {
  readonly app: string;
  readonly routes: readonly CampaignRoute[];
  /** Routes served without credentials (`GET /healthz`): only their other spellings are sent. */
  readonly publicRoutes: readonly string[];
  /** Parameter values by name (a seeded event's id), so the routes reach real data. */
  readonly samples?: Readonly<Record<string, string>>;
  /** The header sent as a wrong credential. */
  readonly wrongToken: string;
}

/** The path's other spellings: each differs from `canonical`, and none is what the route serves. */
export function spellingsOf(pattern: string, samples: Readonly<Record<string, string>> = {}): Map<string, string> {
  const segments = segmentsOf(pattern, samples);
  const canonical = join(segments.map((segment) => segment.text));
  const last = segments.length - 1;
  const lastStatic = segments.map((segment) => segment.isStatic).lastIndexOf(true);
  const texts = segments.map((segment) => segment.text);
  const firstStatic = segments.findIndex((segment) => segment.isStatic);
  const spellings = new Map<string, string>([
    ['upper', mapStatic(segments, (text) => text.toUpperCase())],
    ['mixed-capitalised', mapStatic(segments, (text) => text.charAt(0).toUpperCase() + text.slice(1))],
    [
      'mixed-alternating',
      mapStatic(segments, (text, index) =>
        index === 0 ? [...text].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('') : text,
      ),
    ],
    [
      'encoded-letter-first',
      mapStatic(segments, (text, index) => (index === 0 ? encodeFirstLetter(text, false) : text)),
    ],
    [
      'encoded-letter-last',
      join(texts.map((text, index) => (index === lastStatic ? encodeFirstLetter(text, true) : text))),
    ],
    ['double-slash-lead', `/${canonical}`],
    ['double-slash-inner', last > 0 ? join([...texts.slice(0, last), '', texts[last]]) : `${canonical}//`],
    ['trailing-slash', `${canonical}/`],
    [
      'semicolon-first',
      firstStatic >= 0
        ? join(texts.map((text, index) => (index === firstStatic ? `${text};x=1` : text)))
        : `${canonical};x=1`,
    ],
    ['semicolon-last', `${canonical};x=1`],
    ['dot-segment', `/.${canonical}`],
    ['dot-dot-lead', `/x1/..${canonical}`],
    ['dot-dot-inner', last > 0 ? join([...texts.slice(0, last), 'x1', '..', texts[last]]) : `/x1/..${canonical}`],
    ['encoded-dot-dot', `/x1/%2e%2e${canonical}`],
    ['encoded-slash', last > 0 ? `/${texts.slice(0, last).join('/')}%2F${texts[last]}` : `/%2F${texts[0]}`],
    ['backslash', last > 0 ? `/${texts.slice(0, last).join('/')}\\${texts[last]}` : `/\\${texts[0]}`],
  ]);
  const kept = new Set([canonical]);
  for (const [name, path] of spellings) {
    if (kept.has(path)) spellings.delete(name);
    kept.add(path);
  }
  return spellings;
}

/** The canonical path of `pattern` with its parameters filled. */
export function canonicalPathOf(pattern: string, samples: Readonly<Record<string, string>> = {}): string {
  return join(segmentsOf(pattern, samples).map((segment) => segment.text));
}

/**
 * Every request of one app's campaign: each route's other spellings, without credentials and with a wrong one; and,
 * for a route that is not public, its own path too, without credentials and with the wrong one.
 */
export function campaignRequests(options: CampaignOptions): CampaignRequest[] {
  const publicRoutes = new Set(options.publicRoutes);
  const requests: CampaignRequest[] = [];
  for (const route of options.routes) {
    const isPublic = publicRoutes.has(`${route.method} ${route.pattern}`);
    const paths = new Map(spellingsOf(route.pattern, options.samples));
    if (!isPublic) paths.set('canonical', canonicalPathOf(route.pattern, options.samples));
    const body = ['POST', 'PUT', 'PATCH'].includes(route.method) ? '{}' : undefined;
    const base: Record<string, string> = body ? { 'content-type': 'application/json' } : {};
    for (const [variant, path] of paths) {
      for (const wrong of [false, true])
        requests.push({
          app: options.app,
          route,
          variant: wrong ? `${variant}+wrong-token` : variant,
          method: route.method,
          path,
          headers: wrong ? { ...base, authorization: options.wrongToken } : base,
          body,
        });
    }
  }
  return requests;
}

/** What one request got back. */
export interface CampaignAnswer {
  readonly request: CampaignRequest;
  readonly status: number;
  readonly body: string;
}

/** Sends one request with its raw target (Node's client normalises nothing) and reads the whole answer. */
export function sendRaw(port: number, agent: Agent, hostile: CampaignRequest): Promise<CampaignAnswer> {
  return new Promise((resolve, reject) => {
    const headers = { ...hostile.headers, ...(hostile.body ? { 'content-length': String(hostile.body.length) } : {}) };
    const req = request(
      { host: '127.0.0.1', port, method: hostile.method, path: hostile.path, headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ request: hostile, status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(20_000, () => req.destroy(new Error(`no answer within 20 s to ${hostile.method} ${hostile.path}`)));
    req.end(hostile.body);
  });
}

/** Bodies a refusal may carry: empty, Koa's default status text, or `{ error, message }` with no seeded marker. */
export function exposesData(body: string, markers: readonly string[]): boolean {
  if (markers.some((marker) => body.includes(marker))) return true;
  if (body === '' || /^(Not Found|Unauthorized|Forbidden)$/.test(body)) return false;
  try {
    const parsed = JSON.parse(body) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return true;
    return Object.keys(parsed).some((key) => key !== 'error' && key !== 'message');
  } catch {
    return true;
  }
}

/** Why an answer fails the campaign (a status other than 401, 403, 404, or data in the body), or undefined. */
export function campaignFailure(answer: CampaignAnswer, markers: readonly string[]): string | undefined {
  const { request: sent, status, body } = answer;
  const refused = status === 401 || status === 403 || status === 404;
  if (refused && !exposesData(body, markers)) return undefined;
  return `${sent.app} ${sent.route.method} ${sent.route.pattern} [${sent.variant}] ${sent.method} ${sent.path} -> ${status} ${body.slice(0, 80)}`;
}

/** Sends every request, `concurrency` at a time, and returns the answers in order. */
export async function runCampaign(
  port: number,
  agent: Agent,
  requests: readonly CampaignRequest[],
  concurrency = 8,
): Promise<CampaignAnswer[]> {
  const answers: CampaignAnswer[] = new Array<CampaignAnswer>(requests.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests.length) {
        const index = next++;
        answers[index] = await sendRaw(port, agent, requests[index]).catch((error: Error) => ({
          request: requests[index],
          status: 0,
          body: `network error: ${error.message}`,
        }));
      }
    }),
  );
  return answers;
}
