import { createServer, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { OTHER_SPELLINGS, sendGuardTestRequest as send } from './guard-test-requests';
import { nodeGuard, type NodeGuard } from './index';
import { createRouter, httpGuard } from './koa';

async function listen(
  listener: Parameters<typeof createServer>[0] & object,
): Promise<{ server: Server; port: number }> {
  const server = createServer(listener).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port };
}

const json = (response: ServerResponse, status: number, body: unknown): void => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

describe('nodeGuard', () => {
  const ran: string[] = [];
  let guard: NodeGuard;
  let node: { server: Server; port: number };
  let koa: { server: Server; port: number };

  beforeAll(async () => {
    guard = nodeGuard(
      [
        {
          routes: [{ method: 'GET', path: '/healthz', serve: (_req, res) => json(res, 200, { status: 'ok' }) }],
          access: 'public',
        },
        {
          routes: [
            {
              method: 'GET',
              path: '/api/items',
              serve: (_req, res) => (ran.push('items'), json(res, 200, { items: ['secret'] })),
            },
            { method: 'GET', path: '/api/items/:id', serve: (_req, res, params) => json(res, 200, { id: params.id }) },
            { method: 'POST', path: '/api/items', serve: (_req, res) => (ran.push('create'), json(res, 201, {})) },
            { method: 'GET', path: '/api/boom', serve: () => Promise.reject(new Error('boom')) },
          ],
          access: (req, res) => {
            if (req.headers.authorization === 'Bearer right') return true;
            json(res, 401, { error: 'unauthorized', message: 'a token is required' });
            return false;
          },
        },
      ],
      { onError: () => ran.push('error') },
    );
    node = await listen(guard);

    // The same routes under the Koa guard: both must decide every spelling alike.
    const probes = createRouter();
    probes.get('/healthz', (ctx) => void (ctx.body = { status: 'ok' }));
    const api = createRouter({ prefix: '/api' });
    api.get('/items', (ctx) => void (ctx.body = { items: ['secret'] }));
    api.get('/items/:id', (ctx) => void (ctx.body = { id: ctx.params.id }));
    api.post('/items', (ctx) => void (ctx.status = 201));
    api.get('/boom', () => Promise.reject(new Error('boom')));
    const app = new Koa();
    app.silent = true;
    app.use(
      httpGuard([
        { routers: [probes], access: 'public' },
        {
          routers: [api],
          access: async (ctx, next) => {
            if (ctx.get('authorization') !== 'Bearer right') {
              ctx.status = 401;
              ctx.body = { error: 'unauthorized' };
              return;
            }
            await next();
          },
        },
      ]),
    );
    koa = await listen(app.callback());
  });
  afterAll(async () => {
    await new Promise((resolve) => node.server.close(resolve));
    await new Promise((resolve) => koa.server.close(resolve));
  });

  it('serves public routes, and a guarded route with its credentials only', async () => {
    expect(await send(node.port, 'GET', '/healthz')).toMatchObject({ status: 200 });
    expect(await send(node.port, 'HEAD', '/healthz')).toMatchObject({ status: 200, body: '' });
    expect(await send(node.port, 'GET', '/api/items')).toMatchObject({ status: 401 });
    expect(await send(node.port, 'GET', '/api/items', 'wrong')).toMatchObject({ status: 401 });
    expect(await send(node.port, 'GET', '/api/items?x=1', 'right')).toMatchObject({
      status: 200,
      body: '{"items":["secret"]}',
    });
    expect(await send(node.port, 'GET', '/api/items/AbC%3A1', 'right')).toMatchObject({ body: '{"id":"AbC:1"}' });
  });

  it('refuses, with 404 and before any credential check, every other spelling of a route', async () => {
    ran.length = 0;
    for (const path of OTHER_SPELLINGS) {
      expect([path, await send(node.port, 'GET', path, 'right')]).toEqual([
        path,
        expect.objectContaining({ status: 404, body: '{"error":"not_found","message":"no such route"}' }),
      ]);
    }
    expect(ran).toEqual([]);
  });

  it('decides every spelling and method as the Koa guard does', async () => {
    const paths = [
      ...OTHER_SPELLINGS,
      '/healthz',
      '/healthz#x',
      '/api/items',
      '/api/items/a%20b',
      '/api/items/x/y',
      '/nothing',
      '/',
      'http://127.0.0.1/healthz',
      'http://127.0.0.1/API/items',
      'http://127.0.0.1',
      '*',
    ];
    for (const method of ['GET', 'HEAD', 'POST', 'DELETE', 'OPTIONS'])
      for (const path of paths)
        for (const token of [undefined, 'right']) {
          const [fromNode, fromKoa] = await Promise.all([
            send(node.port, method, path, token),
            send(koa.port, method, path, token),
          ]);
          expect([method, path, token, fromNode.status, fromNode.allow]).toEqual([
            method,
            path,
            token,
            fromKoa.status,
            fromKoa.allow,
          ]);
        }
  });

  it('checks the credentials before answering 405, and names the allowed methods then', async () => {
    expect(await send(node.port, 'DELETE', '/api/items')).toMatchObject({ status: 401 });
    expect(await send(node.port, 'DELETE', '/api/items', 'right')).toMatchObject({
      status: 405,
      allow: 'HEAD, GET, POST',
    });
    expect(await send(node.port, 'POST', '/healthz')).toMatchObject({ status: 405, allow: 'HEAD, GET' });
  });

  it('answers 500 for a route that rejects, and tells onError', async () => {
    ran.length = 0;
    expect(await send(node.port, 'GET', '/api/boom', 'right')).toMatchObject({ status: 500 });
    expect(ran).toEqual(['error']);
  });

  it('lists its routes, and refuses at construction a route that can never be reached', () => {
    expect(guard.routes.map((route) => `${route.methods.join(',')} ${route.path}`)).toEqual([
      'HEAD,GET /healthz',
      'HEAD,GET /api/items',
      'HEAD,GET /api/items/:id',
      'POST /api/items',
      'HEAD,GET /api/boom',
    ]);
    expect(() =>
      nodeGuard([{ routes: [{ method: 'GET', path: '/x/', serve: () => undefined }], access: 'public' }]),
    ).toThrow(/ending in '\/'/);
  });
});
