import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { berthEventCatalog, TEST_EVENT_TYPE } from '@berth/outbound';
import { ApiError } from './read-json-body';
import { eventTypeRoutes } from './event-type-routes';

let server: Server;
let base: string;

beforeAll(async () => {
  const app = new Koa();
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      ctx.status = error instanceof ApiError ? error.status : 500;
      ctx.body = { error: (error as Error).message };
    }
  });
  app.use(eventTypeRoutes(berthEventCatalog()).routes());
  server = createServer(app.callback()).listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('GET /v1/event-types', () => {
  it('lists every registered type with its JSON Schema and example', async () => {
    const response = await fetch(`${base}/v1/event-types`);
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as {
      data: { type: string; schema: { type: string }; example: unknown }[];
    };
    expect(data.map((entry) => entry.type)).toEqual(
      berthEventCatalog()
        .list()
        .map((entry) => entry.type),
    );
    expect(data.every((entry) => entry.schema.type === 'object' && entry.example !== undefined)).toBe(true);
  });

  it('answers one type, and 404 for an unknown one', async () => {
    const one = await fetch(`${base}/v1/event-types/${TEST_EVENT_TYPE}`);
    expect(((await one.json()) as { type: string }).type).toBe(TEST_EVENT_TYPE);
    expect((await fetch(`${base}/v1/event-types/nope.nope`)).status).toBe(404);
  });
});
