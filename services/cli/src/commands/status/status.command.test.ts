import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getFreePort } from '@berth/local-infra';
import { readServiceHealth, type MeshStatus } from './read-status';
import { formatStatus } from './status.command';

describe('berth status', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      response.writeHead(request.url === '/readyz' ? 503 : 404, { 'content-type': 'application/json' });
      response.end('{"status":"not_ready"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('tells a service that answers 503 (not ready) from one that does not answer (down)', async () => {
    const closed = `http://127.0.0.1:${await getFreePort()}`;
    const health = await readServiceHealth(
      [
        { name: 'identity-sync', url },
        { name: 'billing-sync', url: closed },
      ],
      1000,
    );
    expect(health).toEqual([
      { name: 'identity-sync', url, state: 'not ready', detail: '503 {"status":"not_ready"}' },
      { name: 'billing-sync', url: closed, state: 'down', detail: 'ECONNREFUSED' },
    ]);
  });

  it('shows services, consumer lag and the oldest unprocessed event on one screen', () => {
    const status: MeshStatus = {
      source: 'npm start (pid 1)',
      services: [{ name: 'identity-sync', url: 'http://127.0.0.1:9465', state: 'not ready', detail: '503' }],
      consumers: [
        {
          stream: 'WEBHOOKS',
          consumer: 'identity-sync',
          pending: 40,
          ackPending: 2,
          redelivered: 1,
          waitingPulls: 0,
          lag: 42,
        },
      ],
      inbox: {
        unprocessed: 42,
        setAside: 1,
        oldestUnprocessedAgeSeconds: 600,
        oldestUnprocessed: { provider: 'clerk', eventId: 'msg_1', receivedAt: '2026-01-01T00:00:00.000Z' },
      },
      healthy: false,
    };
    const text = formatStatus(status);
    expect(text).toContain('Berth (npm start (pid 1)): NOT HEALTHY');
    expect(text).toMatch(/identity-sync\s+not ready/);
    expect(text).toMatch(/WEBHOOKS\s+identity-sync\s+42\s+40\s+2\s+1\s+no/);
    expect(text).toContain('Inbox: 42 unprocessed, 1 set aside; oldest 10 min (clerk msg_1)');
    expect(text.split('\n').length).toBeLessThan(25);
  });

  it('says what could not be read instead of failing', () => {
    const text = formatStatus({
      source: 'defaults',
      services: [],
      consumers: { error: 'CONNECTION_REFUSED' },
      inbox: { error: 'timeout' },
      healthy: false,
    });
    expect(text).toContain('Services: none known');
    expect(text).toContain('Consumers: could not read NATS: CONNECTION_REFUSED');
    expect(text).toContain('Inbox: could not read MongoDB: timeout');
  });
});
