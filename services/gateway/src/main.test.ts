import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import Stripe from 'stripe';
import { defaultToolsBinDir, spawnManaged, type ManagedProcess } from '@berth/local-infra';
import { startNatsFixture, uniqueId, type NatsFixture } from './test-harness';

const natsBinDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);

const SECRET = 'whsec_main_process';

/** Resolves with everything the server sent once it closes the connection. */
function readUntilClosed(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
  });
}

describe('main.ts process', () => {
  let nats: NatsFixture;
  let gateway: ManagedProcess | undefined;

  beforeAll(async () => {
    nats = await startNatsFixture(natsBinDir);
  });
  afterAll(async () => {
    await gateway?.stop(1000);
    await nats?.close();
  });

  it('serves, then on SIGTERM stops accepting, finishes the request in flight, drains NATS and exits 0', async () => {
    gateway = spawnManaged({
      command: process.execPath,
      args: ['-r', join(__dirname, '..', '..', '..', 'deploy', 'runtime', 'ts-hook.js'), join(__dirname, 'main.ts')],
      env: {
        ...process.env,
        PORT: '0',
        HEALTH_PORT: '0',
        HOST: '127.0.0.1',
        NATS_URL: nats.server.url,
        STRIPE_WEBHOOK_SECRET: SECRET,
        WEBHOOK_STORE_ONLY_PROVIDERS: 'stripe',
        LOG_FORMAT: 'json',
        NODE_ENV: 'production',
      },
    });
    const listening = JSON.parse((await gateway.waitForLine(/^\{.*Gateway listening on :\d+.*\}$/, 60_000))[0]) as {
      port: number;
      healthPort: number;
    };
    const port = listening.port;
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`http://127.0.0.1:${listening.healthPort}/readyz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(404);

    const id = uniqueId('evt');
    const body = JSON.stringify({ id, object: 'event', type: 'invoice.paid' });
    const signature = new Stripe('sk_test_unused').webhooks.generateTestHeaderString({ payload: body, secret: SECRET });
    const socket = connect(port, '127.0.0.1');
    const response = readUntilClosed(socket);
    socket.write(
      `POST /webhooks/stripe HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nStripe-Signature: ${signature}\r\n\r\n${body.slice(0, 10)}`,
    );
    // Answered after the partial request was sent, so the gateway has taken that request in by now.
    expect((await fetch(`${base}/healthz`)).status).toBe(200);

    gateway.child.kill('SIGTERM');
    await gateway.waitForLine(/Shutting down/, 10_000);
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
    socket.write(body.slice(10));

    expect(await response).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\{"received":true\}$/);
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    expect((await nats.lastMessage('webhooks.stripe.invoice.paid')).header.get('Nats-Msg-Id')).toBe(`stripe:${id}`);
  });
});
