/**
 * Runs every `nats` CLI command of the README's runbook, as written, against a real nats-server holding the
 * streams and consumers the services provision and one webhook as the gateway stores it. The server runs Berth's
 * NATS users (deploy/nats/auth.conf): the streams and the webhook are provisioned as the gateway and billing-sync
 * do it, the runbook runs as the operator (the `NATS_URL` of `.data/berth-local.json` under `npm start`), and
 * nothing may be refused.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { defaultToolsBinDir } from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import {
  connectMessaging,
  deadLettersStream,
  ensureConsumer,
  ensureStream,
  publishMessage,
  webhooksStream,
  type Messaging,
} from '@berth/messaging';
import { repoRoot } from '../support/service-process';
import { startNatsWithUsers, type NatsWithUsers } from '../support/nats-with-users';

const run = promisify(execFile);
const binDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);

/** The shell blocks between the runbook markers of README.md, each with the title of its step. */
function runbookSteps(): { title: string; script: string }[] {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const section = readme.split('<!-- runbook:start -->')[1]?.split('<!-- runbook:end -->')[0];
  if (!section) throw new Error('README.md has no runbook section');
  return [...section.matchAll(/\*\*([^*]+)\*\*[\s\S]*?```sh\n([\s\S]*?)```/g)].map((match) => ({
    title: match[1],
    script: match[2],
  }));
}

describe('README runbook', () => {
  let server: NatsWithUsers;
  let messaging: Messaging;
  let workDir: string;
  const connections: Messaging[] = [];
  const as = async (user: 'gateway' | 'billing-sync' | 'operator'): Promise<Messaging> => {
    const connection = await connectMessaging({
      servers: server.urlAs(user),
      name: `runbook-test-${user}`,
      logger: createLogger({ service: 'runbook-test', level: 'silent' }),
    });
    connections.push(connection);
    return connection;
  };

  beforeAll(async () => {
    server = await startNatsWithUsers({ binDir });
    messaging = await as('operator');
    const gateway = await as('gateway');
    const billingSync = await as('billing-sync');
    await ensureStream(gateway.jsm, webhooksStream());
    await ensureStream(billingSync.jsm, deadLettersStream());
    await ensureConsumer(billingSync.jsm, {
      stream: 'WEBHOOKS',
      durable: 'billing-sync',
      filterSubjects: ['webhooks.stripe.>'],
      ackWaitMs: 30000,
    });
    await publishMessage(gateway.js, {
      subject: 'webhooks.stripe.customer.subscription.updated',
      data: JSON.stringify({
        id: 'evt_runbook_1',
        type: 'customer.subscription.updated',
        data: { object: { customer: 'cus_1' } },
      }),
      msgId: 'stripe:evt_runbook_1',
      headers: {
        'Berth-Provider': 'stripe',
        'Berth-Event-Id': 'evt_runbook_1',
        'Berth-Event-Type': 'customer.subscription.updated',
        'Berth-Received-At': new Date().toISOString(),
      },
    });
    workDir = await mkdtemp(join(tmpdir(), 'berth-runbook-'));
  });

  afterAll(async () => {
    await Promise.all(connections.map((connection) => connection.close()));
    await server?.stop();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('has steps', () => {
    expect(runbookSteps().length).toBeGreaterThanOrEqual(5);
  });

  it.each(runbookSteps().map((step) => [step.title, step.script]))('%s', async (_title, script) => {
    const { stdout, stderr } = await run('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: workDir,
      env: {
        PATH: `${binDir}:${process.env.PATH}`,
        HOME: process.env.HOME ?? workDir,
        NATS_URL: server.urlAs('operator'),
        SEQ: '1',
        EVENT_ID: 'evt_runbook_1',
      },
      timeout: 20000,
    });
    expect(`${stdout}${stderr}`.trim().length).toBeGreaterThan(0);
  });

  it('the republish step stored a second copy of the event under a new id', async () => {
    const info = await messaging.jsm.streams.info('WEBHOOKS');
    expect(info.state.messages).toBe(2);
    const copy = await messaging.jsm.streams.getMessage('WEBHOOKS', { seq: 2 });
    expect(copy?.json<{ id: string }>().id).toBe('evt_runbook_1');
    expect(copy?.header.get('Nats-Msg-Id')).toBe('stripe:evt_runbook_1:replay-1');
  });
});
