import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import { pathRefusal } from '../index';
import { OTHER_SPELLINGS, sendGuardTestRequest } from '../guard-test-requests';
import { createRouter, httpGuard, type HttpGuard } from './index';

describe('pathRefusal', () => {
  it.each([
    ['/', undefined],
    ['/api/webhooks/events', undefined],
    ['/api/webhooks/events/stripe/evt_1AbC', undefined],
    ['/v1/event-types/invoice.paid', undefined],
    ['/api/webhooks/events/generic/order%3A1%20x', undefined],
    ['/events/generic/caf%C3%A9', undefined],
    ['api', 'not-absolute'],
    ['*', 'not-absolute'],
    ['//api', 'empty-segment'],
    ['/api//webhooks', 'empty-segment'],
    ['/api/', 'trailing-slash'],
    ['/./api', 'dot-segment'],
    ['/x/../api', 'dot-segment'],
    ['/api/..', 'dot-segment'],
    ['/api;x=1/issues', 'semicolon'],
    ['/api\\issues', 'backslash'],
    ['/api/\u00e9', 'not-printable-ascii'],
    ['/api/a b', 'not-printable-ascii'],
    ['/api/%zz', 'bad-escape'],
    ['/api/%4', 'bad-escape'],
    ['/%61pi/issues', 'encoded-unreserved'],
    ['/API/%49SSUES', 'encoded-unreserved'],
    ['/x/%2e%2e/api', 'encoded-unreserved'],
    ['/api/%7Euser', 'encoded-unreserved'],
    ['/api%2Fissues', 'encoded-separator'],
    ['/api%2fissues', 'encoded-separator'],
    ['/api%5Cissues', 'encoded-separator'],
    ['/api/%00', 'encoded-control'],
    ['/api/%7F', 'encoded-control'],
  ])('%s: %s', (path, reason) => {
    expect(pathRefusal(path)).toBe(reason);
  });
});

describe('httpGuard', () => {
  let server: Server;
  let port: number;
  let guard: HttpGuard;
  const ran: string[] = [];

  beforeAll(async () => {
    const probes = createRouter();
    probes.get('/healthz', (ctx) => {
      ctx.body = { status: 'ok' };
    });
    const api = createRouter({ prefix: '/api' });
    api.get('/items', (ctx) => {
      ran.push('items');
      ctx.body = { items: ['secret'] };
    });
    api.get('/items/:id', (ctx) => {
      ctx.body = { id: ctx.params.id };
    });
    api.post('/items', (ctx) => {
      ran.push('create');
      ctx.status = 201;
    });
    const web = createRouter();
    web.get('/{*path}', (ctx) => {
      ctx.body = 'page';
    });
    guard = httpGuard([
      { routers: [probes], access: 'public' },
      {
        routers: [api],
        access: async (ctx, next) => {
          if (ctx.get('authorization') !== 'Bearer right') {
            ctx.status = 401;
            ctx.body = { error: 'unauthorized', message: 'a token is required' };
            return;
          }
          await next();
        },
      },
      { routers: [web], access: 'public' },
    ]);
    const app = new Koa();
    app.use(guard);
    server = createServer(app.callback()).listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const send = (method: string, path: string, token?: string) => sendGuardTestRequest(port, method, path, token);

  it('serves public routes, and a guarded route with its credentials only', async () => {
    expect(await send('GET', '/healthz')).toMatchObject({ status: 200 });
    expect(await send('GET', '/api/items')).toMatchObject({ status: 401 });
    expect(await send('GET', '/api/items', 'wrong')).toMatchObject({ status: 401 });
    expect(await send('GET', '/api/items', 'right')).toMatchObject({ status: 200, body: '{"items":["secret"]}' });
    expect(await send('GET', '/api/items/AbC%3A1', 'right')).toMatchObject({ body: '{"id":"AbC:1"}' });
    expect(await send('GET', '/events/stripe/evt_1AbC')).toMatchObject({ status: 200, body: 'page' });
  });

  it('refuses, with 404 and before any credential check, every other spelling of a route', async () => {
    ran.length = 0;
    for (const path of OTHER_SPELLINGS) {
      expect([path, await send('GET', path, 'right')]).toEqual([
        path,
        expect.objectContaining({ status: 404, body: '{"error":"not_found","message":"no such route"}' }),
      ]);
    }
    expect(ran).toEqual([]);
  });

  it('checks the credentials before answering 405, and names the allowed methods then', async () => {
    expect(await send('DELETE', '/api/items')).toMatchObject({ status: 401 });
    expect(await send('DELETE', '/api/items', 'right')).toMatchObject({ status: 405, allow: 'HEAD, GET, POST' });
    expect(await send('POST', '/healthz')).toMatchObject({ status: 405 });
  });

  it('lists the routers it mounts', () => {
    expect(guard.routers.flatMap((router) => router.stack.map((layer) => layer.path))).toEqual([
      '/healthz',
      '/api/items',
      '/api/items/:id',
      '/api/items',
      '/{*path}',
    ]);
  });

  it('refuses at construction what would route outside its decision', () => {
    const lenient = new Router();
    lenient.get('/x', () => undefined);
    expect(() => httpGuard([{ routers: [lenient], access: 'public' }])).toThrow(/createRouter/);
    const trailing = createRouter({ prefix: '/v1/things' });
    trailing.get('/', () => undefined);
    expect(() => httpGuard([{ routers: [trailing], access: 'public' }])).toThrow(/ending in '\/'/);
    const withMiddleware = createRouter();
    withMiddleware.use(async (_ctx, next) => next());
    expect(() => httpGuard([{ routers: [withMiddleware], access: 'public' }])).toThrow(/middleware/);
  });
});
