/**
 * The console and the endpoint portal in a real browser (Debian's chromium through playwright-core), against the
 * mesh on real servers. Each recovery is done by clicking through the pages as an on-call engineer or a customer
 * would, and checked in the stores afterwards: a set-aside webhook event retried and processed, a dead-lettered job
 * replayed and run, an endpoint secret rotated in the portal and the next delivery signed with it. The API's
 * authentication (roles, confirmations, the portal's workspace scope) is checked black-box over HTTP. A screenshot
 * of every page is saved under test/console/screenshots/ (gitignored).
 */
import { waitFor } from '@berth/local-infra/testing';
import type { Page } from 'playwright-core';
import {
  explainJob,
  getMessageQueueToken,
  listCancellations,
  listDeadLetters,
  type MessageQueueService,
} from '@berth/jobs';
import { cronTickMessage, LastTickStore, LeaderLease, openCronBuckets, registerCronSchedules } from '@berth/cron';
import { publishMessage } from '@berth/messaging';
import { createLogger } from '@berth/logger';
import { connectMessaging } from '@berth/messaging';
import { createEndpoint, listDeliveries, outboundCollections, sendEvent, type CreatedEndpoint } from '@berth/outbound';
import { WebhookReceiver } from '../support/webhook-receiver';
import { RECEIPTS_QUEUE, receiptsWorld, SendReceiptJob } from './receipts-job';
import { accessibilityViolations, signIn, startConsoleWorld, TOKENS, type ConsoleWorld } from './support';

jest.setTimeout(180_000);

const GHOST = { eventId: 'evt_console_ghost', disputeId: 'du_console_ghost' };
const logger = createLogger({ service: 'console-test', level: 'silent' });
let world: ConsoleWorld;
let healthy: WebhookReceiver;
let failing: WebhookReceiver;
let endpoint: CreatedEndpoint;
let deadLetterId: number;

function disputeEvent(eventId: string, disputeId: string, type = 'charge.dispute.updated') {
  return {
    id: eventId,
    object: 'event',
    type,
    api_version: '2026-10-28.endive',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    data: {
      object: {
        id: disputeId,
        object: 'dispute',
        evidence: { customer_email_address: 'ada@example.com', customer_name: 'Ada Lovelace' },
      },
    },
  };
}

beforeAll(async () => {
  world = await startConsoleWorld('console_browser');
  const { mesh } = world;
  receiptsWorld.record = async (receiptId) =>
    void (await mesh.db
      .collection<{ _id: string; at: Date }>('consoleReceipts')
      .insertOne({ _id: receiptId, at: new Date() }));

  // Webhooks: three disputes Stripe has (processed), one it does not (set aside at once: Stripe answers 404).
  for (const n of [1, 2, 3]) {
    mesh.standIn.setDispute({ id: `du_console_${n}`, status: 'under_review', amount: 1000 * n });
    expect((await mesh.sender.sendStripe(disputeEvent(`evt_console_${n}`, `du_console_${n}`))).status).toBe(200);
  }
  expect((await mesh.sender.sendStripe(disputeEvent(GHOST.eventId, GHOST.disputeId))).status).toBe(200);
  await waitFor(() => mesh.inbox.events.findOne({ _id: `stripe:${GHOST.eventId}` }), {
    what: 'the ghost dispute event to be set aside',
    timeoutMs: 60_000,
    intervalMs: 100,
    until: (row) => row?.abandonedAt instanceof Date,
  });

  // Jobs: a cron registered and a scheduler leader; one receipt job that fails for good, one that runs.
  await registerCronSchedules({
    messaging: mesh.messaging,
    owner: 'console-test',
    definitions: [{ name: 'NightlyReportCron', pattern: '30 3 * * *', timeZone: 'Europe/Paris' }],
    logger,
  });
  // A leader, as the scheduler holds it: only the scheduler's NATS user may write the lease.
  const scheduler = await connectMessaging({
    servers: mesh.natsUrlAs('scheduler'),
    name: 'console-test-lease',
    logger,
  });
  try {
    await new LeaderLease({
      buckets: await openCronBuckets(scheduler.js),
      holder: 'scheduler-test:1',
      ttlMs: 60_000,
      logger,
    }).maintain();
  } finally {
    await scheduler.close();
  }
  receiptsWorld.broken.add('rcpt_broken');
  const queue = world.jobs.get<MessageQueueService>(getMessageQueueToken(RECEIPTS_QUEUE));
  await queue.add(SendReceiptJob.name, { receiptId: 'rcpt_ok' });
  await queue.add(SendReceiptJob.name, { receiptId: 'rcpt_broken' });
  const [letter] = await waitFor(() => listDeadLetters(mesh.messaging, { queue: RECEIPTS_QUEUE }), {
    what: 'the broken receipt in the dead letters',
    timeoutMs: 30_000,
    intervalMs: 100,
    until: (letters) => letters.length === 1,
  });
  deadLetterId = letter.id;

  // Outbound: workspace ws_acme has a healthy endpoint and one that answers 500 to everything.
  healthy = await new WebhookReceiver().start();
  failing = await new WebhookReceiver([], () => ({ status: 500, body: 'database is down' })).start();
  const operations = { collections: outboundCollections(mesh.db) };
  endpoint = await createEndpoint(operations, {
    workspaceId: 'ws_acme',
    url: healthy.url,
    description: 'Acme production',
  });
  healthy.setSecrets([endpoint.secret]);
  await createEndpoint(operations, { workspaceId: 'ws_acme', url: failing.url, description: 'Acme staging' });
  await createEndpoint(operations, { workspaceId: 'ws_other', url: healthy.url, description: 'Another customer' });
  await world.dispatcher.dispatcher.reloadEndpoints();
  for (const n of [1, 2])
    await sendEvent(
      { js: mesh.messaging.js },
      'ws_acme',
      'invoice.paid',
      { invoiceId: `in_${n}`, amount: 4900, currency: 'eur', paidAt: new Date().toISOString() },
      { idempotencyKey: `invoice-${n}` },
    );
  await waitFor(() => listDeliveries({ collections: operations.collections }, { workspaceId: 'ws_acme' }), {
    what: 'the four deliveries to settle',
    timeoutMs: 30_000,
    intervalMs: 100,
    until: (views) =>
      views.length === 4 && views.every((view) => view.status === 'delivered' || view.status === 'failed'),
  });
}, 420_000);

afterAll(async () => {
  await Promise.all([healthy?.stop(), failing?.stop()]);
  await world?.stop();
});

async function confirmDialog(page: Page, screenshot?: string): Promise<string> {
  const dialog = page.getByRole('dialog');
  await dialog.getByTestId('preview-count').waitFor();
  const count = await dialog.getByTestId('preview-count').textContent();
  if (screenshot) await world.screenshot(page, screenshot);
  await dialog.getByRole('button', { name: /^Confirm/ }).click();
  await dialog.waitFor({ state: 'hidden' });
  return count ?? '';
}

describe('the console API', () => {
  it('refuses requests without a valid token, actions without the operator role or a confirmation, and portal sessions outside their workspace', async () => {
    expect((await world.call('/api/overview', undefined)).status).toBe(401);
    expect((await world.call('/api/overview', 'not-a-token-at-all-0123456789')).status).toBe(401);
    expect((await world.call('/api/overview', TOKENS.viewer)).status).toBe(200);
    expect((await world.call('/api/overview', TOKENS.issuer)).status).toBe(403);
    expect((await world.call('/api/webhooks/events', TOKENS.issuer)).status).toBe(403);

    const params = { provider: 'stripe', eventId: GHOST.eventId };
    expect(
      (await world.call('/api/actions/webhooks.redeliver/preview', TOKENS.viewer, { method: 'POST', body: { params } }))
        .status,
    ).toBe(403);
    expect(
      (await world.call('/api/actions/webhooks.redeliver', TOKENS.operator, { method: 'POST', body: { params } }))
        .status,
    ).toBe(428);
    const preview = await world.call('/api/actions/webhooks.redeliver/preview', TOKENS.operator, {
      method: 'POST',
      body: { params },
    });
    expect(preview).toMatchObject({ status: 200, body: { count: 1, confirmation: expect.any(String) } });
    const otherEvent = { provider: 'stripe', eventId: 'evt_console_1' };
    expect(
      (
        await world.call('/api/actions/webhooks.redeliver', TOKENS.operator, {
          method: 'POST',
          body: { params: otherEvent, confirmation: preview.body.confirmation },
        })
      ).status,
    ).toBe(428);
    // Nothing ran: the ghost event is still set aside, never requeued.
    expect(await world.mesh.inbox.events.findOne({ _id: `stripe:${GHOST.eventId}` })).toMatchObject({
      abandonedAt: expect.any(Date),
      requeueCount: 0,
    });

    expect(
      (
        await world.call('/api/portal-sessions', TOKENS.viewer, {
          method: 'POST',
          body: { workspaceId: 'ws_other', subject: 'u1' },
        })
      ).status,
    ).toBe(403);
    const session = await world.call('/api/portal-sessions', TOKENS.issuer, {
      method: 'POST',
      body: { workspaceId: 'ws_other', subject: 'u1', ttlSeconds: 300 },
    });
    expect(session.status).toBe(201);
    const portalToken = session.body.token as string;
    expect((await world.call('/api/overview', portalToken)).status).toBe(401);
    expect((await world.call('/api/portal/endpoints', TOKENS.operator)).status).toBe(401);
    const own = await world.call('/api/portal/endpoints', portalToken);
    expect((own.body.endpoints as { workspaceId: string }[]).map((entry) => entry.workspaceId)).toEqual(['ws_other']);
    expect(
      (
        await world.call('/api/portal/actions/portal.rotate-secret/preview', portalToken, {
          method: 'POST',
          body: { params: { endpointId: endpoint.endpoint.id } },
        })
      ).status,
    ).toBe(404);
    const acmeDeliveries = await world.call(`/api/portal/deliveries?endpointId=${endpoint.endpoint.id}`, portalToken);
    expect(acmeDeliveries.body.deliveries).toEqual([]);
    const [body, signature] = portalToken.split('.');
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = `${Buffer.from(JSON.stringify({ ...claims, ws: 'ws_acme' })).toString('base64url')}.${signature}`;
    expect((await world.call('/api/portal/endpoints', forged)).status).toBe(401);
  });
});

describe('the console in a browser', () => {
  it('checks every screenshotted page for accessibility with a check that reports a known mistake', async () => {
    const page = await world.newPage();
    await page.setContent(
      '<!doctype html><html lang="en"><head><title>t</title></head><body><main><input type="text"><button></button></main></body></html>',
    );
    const violations = await accessibilityViolations(page);
    expect(violations.some((violation) => violation.startsWith('label '))).toBe(true);
    expect(violations.some((violation) => violation.startsWith('button-name '))).toBe(true);
    await page.context().close();
  });

  it('finds the set-aside event and retries it; the inbox then holds it processed', async () => {
    const page = await world.newPage();
    await page.goto('/');
    await world.screenshot(page, '00-sign-in');
    await signIn(page, TOKENS.operator);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByRole('article', { name: 'Provider stripe' }).waitFor();
    await world.screenshot(page, '01-overview');
    // The job charts start when the console began sampling, not an hour back as the webhook charts (from rows) do.
    const firstTime = (name: string) =>
      page.getByRole('article', { name }).locator('svg text.tick').nth(2).textContent();
    expect(await firstTime('Queue console-receipts')).not.toBe(await firstTime('Provider stripe'));

    await page.getByRole('link', { name: 'Webhook events' }).click();
    await page.getByLabel('State').selectOption('set-aside');
    await page.getByRole('button', { name: 'Search' }).click();
    const link = page.getByRole('link', { name: `stripe:${GHOST.eventId}` });
    await link.waitFor();
    // The unfiltered list shows the event too: wait until the search's answer has replaced it.
    const rows = page.locator('table.events tbody tr');
    await waitFor(() => rows.count(), {
      what: 'the set-aside search to list one event',
      until: (count) => count === 1,
    });
    await world.screenshot(page, '02-webhook-events-set-aside');
    await link.click();

    await page.getByRole('heading', { name: `stripe:${GHOST.eventId}` }).waitFor();
    const payload = page.getByLabel('Payload');
    await payload.waitFor();
    expect(await payload.textContent()).not.toContain('ada@example.com');
    expect(
      await page
        .getByText(/UnrecoverableError: Stripe refused dispute du_console_ghost: 404/)
        .first()
        .isVisible(),
    ).toBe(true);
    await page.getByRole('rowheader', { name: 'Berth-Provider' }).waitFor();
    // The one failed attempt, with how it ended; its error printed once, in full, as the last error.
    const attempts = page.getByRole('table', { name: 'Attempts' });
    await attempts
      .getByRole('row')
      .filter({ hasText: 'failed' })
      .getByRole('link', { name: 'the last error, above' })
      .waitFor();
    expect(await page.getByText(/UnrecoverableError: Stripe refused dispute du_console_ghost: 404/).count()).toBe(1);
    expect(await page.getByRole('table', { name: 'Earlier failed attempts' }).count()).toBe(0);
    // Where it stands: attempt 1 of 11, set aside at a time with its zone, the schedule in words.
    expect(await page.getByTestId('attempt-place').textContent()).toMatch(
      /^attempt 1 of 11 \(round 1 of 3\), set aside .*(UTC|GMT)/,
    );
    expect(await page.getByTestId('schedule').textContent()).toMatch(
      /Attempt 1 of 11 \(round 1 of 3\) failed and the event was set aside at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC; nothing runs it until someone retries it\./,
    );
    // Relative times carry the absolute time and its zone on hover.
    expect(await page.locator('dl.facts time').first().getAttribute('title')).toMatch(/(UTC|GMT)/);
    await page
      .getByTestId('updated')
      .getByText(/^Updated \d+ s ago/)
      .waitFor();
    await page
      .getByRole('table', { name: 'Provider headers' })
      .getByRole('rowheader', { name: 'stripe-signature' })
      .waitFor();
    // The trace, read from Jaeger, as a waterfall: the gateway's request and publish, billing-sync's consume,
    // its MongoDB calls and its call to Stripe, each under its parent.
    const traceLink = page.getByRole('link', { name: /^[0-9a-f]{32}$/ });
    expect(await traceLink.getAttribute('href')).toBe('#trace');
    const traceId = (await traceLink.textContent())!;
    const waterfall = page.getByRole('table', { name: `Trace ${traceId}` });
    const services = async () => waterfall.locator('tbody tr td:first-child').allTextContents();
    await waitFor(
      async () => {
        const again = page.getByRole('button', { name: 'Look again' });
        if ((await again.count()) > 0) await again.click();
        return (await waterfall.count()) > 0 ? services() : ([] as string[]);
      },
      {
        what: 'the waterfall to show spans of the gateway and billing-sync',
        timeoutMs: 30_000,
        intervalMs: 250,
        until: (names) => names.includes('gateway') && names.includes('billing-sync'),
      },
    );
    expect(await waterfall.getByText(/^POST/).count()).toBeGreaterThan(0);
    expect(await waterfall.getByText('(error)').count()).toBeGreaterThan(0);
    await world.screenshot(page, '03-webhook-event-set-aside');

    world.mesh.standIn.setDispute({ id: GHOST.disputeId, status: 'won', amount: 777 });
    await page.getByRole('button', { name: 'Retry this set-aside event…' }).click();
    // The dialog's title holds the whole event id without running out of the dialog.
    const title = page.getByRole('dialog').getByRole('heading');
    await title.waitFor();
    expect(await title.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
    await page.getByRole('dialog').getByText('1 item would change.').waitFor();
    expect(await confirmDialog(page, '04-confirm-retry')).toBe('1');
    await page.getByRole('status').filter({ hasText: 'Published 1 of 1 selected event again' }).waitFor();

    const row = await waitFor(() => world.mesh.inbox.events.findOne({ _id: `stripe:${GHOST.eventId}` }), {
      what: 'the retried event to be processed',
      timeoutMs: 30_000,
      intervalMs: 100,
      until: (found) => found?.processedAt instanceof Date,
    });
    expect(row).toMatchObject({ abandonedAt: null, reopenedAt: expect.any(Date), requeueCount: 1 });
    expect(await world.mesh.db.collection('billingDisputes').findOne({ _id: GHOST.disputeId as never })).toMatchObject({
      status: 'won',
      amount: 777,
    });
    expect(
      await world.mesh.db.collection('consoleAudit').findOne({ action: 'webhooks.retry-abandoned', outcome: 'done' }),
    ).toMatchObject({ actor: 'alice', role: 'operator' });

    // The page refreshes itself: without a reload it comes to show the event processed, by an attempt that
    // succeeded (not one whose "lease ran out"), after the failed one.
    await page
      .getByRole('table', { name: 'Attempts' })
      .getByText('succeeded', { exact: true })
      .waitFor({ timeout: 20_000 });
    expect(
      await page.getByRole('table', { name: 'Attempts' }).locator('tbody tr td:nth-child(6) .badge').allTextContents(),
    ).toEqual(['failed', 'succeeded']);
    await page.getByText('processed', { exact: true }).first().waitFor();
    await world.screenshot(page, '05a-webhook-event-retried-processed');
    // The retry's notice stays on the page it was given on.
    await page.getByRole('link', { name: '← Webhook events' }).click();
    await page.getByRole('heading', { name: 'Webhook events' }).waitFor();
    expect(await page.getByText('Published 1 of 1 selected event again').count()).toBe(0);
    await page.goBack();
    await page.getByRole('heading', { name: `stripe:${GHOST.eventId}` }).waitFor();
    await page.getByRole('button', { name: 'Show personal data (logged)' }).click();
    await page.getByText('Unmasked: this read was written to the audit trail.').waitFor();
    expect(await page.getByLabel('Payload').textContent()).toContain('ada@example.com');
    await world.screenshot(page, '05-webhook-event-processed');
    expect(await world.mesh.db.collection('consoleAudit').findOne({ action: 'webhooks.reveal-payload' })).toMatchObject(
      { actor: 'alice' },
    );
    await page.context().close();
  });

  it('sends a processed event to its handler again from its page, with a preview that counts it', async () => {
    const page = await world.newPage();
    await signIn(page, TOKENS.operator);
    await page.getByRole('link', { name: 'Webhook events' }).click();
    // The list refreshes itself and says so; its next-attempt column reads "–" for processed events.
    await page
      .getByTestId('updated')
      .getByText(/^Updated \d+ s ago · refreshes every 10 s/)
      .waitFor();
    const listed = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'stripe:evt_console_1' }) });
    await listed.waitFor();
    expect(await page.getByRole('columnheader', { name: 'Next attempt' }).count()).toBe(1);
    await world.screenshot(page, '05b-webhook-events');
    await listed.getByRole('link', { name: 'stripe:evt_console_1' }).click();
    await page.getByRole('heading', { name: 'stripe:evt_console_1' }).waitFor();
    const before = (await world.mesh.inbox.events.findOne({ _id: 'stripe:evt_console_1' }))!;
    expect(before.processedAt).toBeInstanceOf(Date);

    // The handler was fixed: the dispute now reads differently at Stripe, and only running the event again shows it.
    world.mesh.standIn.setDispute({ id: 'du_console_1', status: 'won', amount: 4242 });
    await page.getByRole('button', { name: 'Send again (run the handler once more)…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(/Sends stripe:evt_console_1 to its handler once more: it was processed at/).waitFor();
    expect(await confirmDialog(page, '05c-confirm-send-processed-again')).toBe('1');
    await page.getByRole('status').filter({ hasText: 'stripe:evt_console_1: sent to its handler again' }).waitFor();

    const after = await waitFor(() => world.mesh.inbox.events.findOne({ _id: 'stripe:evt_console_1' }), {
      what: 'the event sent again to be processed again',
      timeoutMs: 30_000,
      intervalMs: 100,
      until: (row) => row?.processedAt instanceof Date && row.processedAt.getTime() > before.processedAt!.getTime(),
    });
    expect(after).toMatchObject({
      processedBefore: [expect.objectContaining({ at: before.processedAt })],
      requeueCount: 1,
    });
    expect(await world.mesh.db.collection('billingDisputes').findOne({ _id: 'du_console_1' as never })).toMatchObject({
      status: 'won',
      amount: 4242,
    });
    expect(
      await world.mesh.db.collection('consoleAudit').findOne({ action: 'webhooks.redeliver', outcome: 'done' }),
    ).toMatchObject({ actor: 'alice', params: { provider: 'stripe', eventId: 'evt_console_1' } });
    // Both successes read so on the page, which updates itself.
    const outcomes = page.getByRole('table', { name: 'Attempts' }).locator('tbody tr td:nth-child(6) .badge');
    await waitFor(() => outcomes.allTextContents(), {
      what: 'the attempt log to show the second success',
      timeoutMs: 20_000,
      until: (texts) => texts.filter((text) => text === 'succeeded').length === 2,
    });
    expect(await outcomes.allTextContents()).not.toContain('lease-ran-out');
    await page.getByText(/\(before: /).waitFor();
    await world.screenshot(page, '05d-webhook-event-sent-again');
    await page.context().close();
  });

  it('replays a dead letter; the worker then runs the job and the dead letter is gone', async () => {
    // The cron ticked once (as a leader records and publishes a tick): its last run is that tick's job.
    const tick = new Date(Date.UTC(2026, 0, 1, 2, 30));
    await new LastTickStore((await openCronBuckets(world.mesh.messaging.js)).lastTicks, 'scheduler-test:1').record(
      'NightlyReportCron',
      tick,
    );
    await publishMessage(
      world.mesh.messaging.js,
      cronTickMessage({ name: 'NightlyReportCron', queue: 'cron-queue' }, tick),
    );
    const page = await world.newPage();
    await signIn(page, TOKENS.operator);
    await page.getByRole('link', { name: 'Jobs' }).click();
    await page
      .getByRole('cell', { name: `${RECEIPTS_QUEUE} / SendReceiptJob` })
      .first()
      .waitFor();
    await page.getByRole('button', { name: 'Details' }).click();
    await page.getByText('receipt template missing for rcpt_broken').first().waitFor();
    await page.getByRole('cell', { name: 'NightlyReportCron' }).waitFor();
    await world.screenshot(page, '06-jobs');

    // A queue's jobs with their data: a delayed receipt, cancelled from its row.
    const queue = world.jobs.get<MessageQueueService>(getMessageQueueToken(RECEIPTS_QUEUE));
    await queue.add(SendReceiptJob.name, { receiptId: 'rcpt_later' }, { delayInMilliseconds: 3_600_000 });
    await page.getByRole('button', { name: `Jobs of ${RECEIPTS_QUEUE}` }).click();
    const jobs = page.getByRole('table', { name: `Jobs of ${RECEIPTS_QUEUE}` });
    const later = jobs.getByRole('row').filter({ hasText: 'rcpt_later' });
    await later.waitFor({ timeout: 20_000 });
    expect(await later.locator('.badge').textContent()).toBe('delayed');
    expect(await later.textContent()).toContain(SendReceiptJob.name);
    expect(await later.textContent()).toContain('0 of');
    await world.screenshot(page, '06b-queue-jobs');
    const laterId = (await later.locator('code').first().textContent())!;
    await later.getByRole('button', { name: 'Cancel…' }).click();
    expect(await confirmDialog(page, '06c-confirm-cancel-job')).toBe('1');
    await later.locator('.badge').getByText('cancelled', { exact: true }).waitFor();
    expect((await listCancellations(world.mesh.messaging, RECEIPTS_QUEUE)).map((record) => record.jobId)).toContain(
      laterId,
    );

    // The cron's pattern in words; "Run now" queues one extra tick, which JetStream then holds for a worker.
    const cronRow = page.getByRole('row').filter({ hasText: 'NightlyReportCron' });
    await cronRow.getByText('every day at 03:30 (Europe/Paris)').waitFor();
    expect(await cronRow.getByTestId('cron-last-run').locator('.badge').textContent()).toMatch(/^(waiting|delivered)$/);
    await cronRow.getByRole('button', { name: 'Run now…' }).click();
    expect(await confirmDialog(page, '06a-confirm-cron-run-now')).toBe('1');
    const queued = page.getByRole('status').filter({ hasText: /^Queued a run of NightlyReportCron now \(job / });
    await queued.waitFor();
    const jobId = /\(job (cron:NightlyReportCron:[^)]+)\)/.exec((await queued.textContent())!)![1];
    expect((await explainJob(world.mesh.messaging, 'cron-queue', jobId)).state).toMatch(/^(waiting|delivered)$/);

    // Cancelling the confirmation (Escape, from the keyboard) changes nothing.
    await page.getByRole('button', { name: 'Replay…' }).click();
    await page.getByRole('dialog').getByTestId('preview-count').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    expect((await listDeadLetters(world.mesh.messaging, { queue: RECEIPTS_QUEUE })).map((letter) => letter.id)).toEqual(
      [deadLetterId],
    );

    receiptsWorld.broken.delete('rcpt_broken');
    await page.getByRole('button', { name: 'Replay…' }).click();
    expect(await confirmDialog(page, '07-confirm-replay')).toBe('1');
    await page.getByRole('status').filter({ hasText: 'Queued 1 job again' }).waitFor();

    await waitFor(() => world.mesh.db.collection('consoleReceipts').findOne({ _id: 'rcpt_broken' as never }), {
      what: 'the replayed job to run',
      timeoutMs: 30_000,
      intervalMs: 100,
      until: (receipt) => receipt !== null,
    });
    expect(await listDeadLetters(world.mesh.messaging, { queue: RECEIPTS_QUEUE })).toEqual([]);
    expect(
      await world.mesh.db.collection('consoleAudit').findOne({ action: 'jobs.replay-dead', outcome: 'done' }),
    ).toMatchObject({ actor: 'alice', params: { ids: [deadLetterId] } });
    await page.getByText('No dead letters.').waitFor();
    await world.screenshot(page, '08-jobs-after-replay');
    await page.context().close();
  });

  it('shows outbound endpoints and deliveries, the issues grouped by cause, and the audit trail; a viewer gets no action buttons', async () => {
    const page = await world.newPage();
    await signIn(page, TOKENS.operator);
    await page.getByRole('link', { name: 'Outbound' }).click();
    await page.getByRole('article', { name: 'Workspace ws_acme' }).waitFor();
    await page.getByText('failed', { exact: true }).first().waitFor();
    // Deliveries name their endpoint by URL; the failed one's last attempt says no retry follows it.
    const deliveries = page.getByRole('table', { name: 'Deliveries, newest first' });
    const failedRow = deliveries.getByRole('row').filter({ hasText: failing.url }).first();
    await failedRow.waitFor();
    await failedRow.getByRole('button', { name: 'Attempts' }).click();
    const log = page.locator('ol.attempts').first();
    await log.getByText('(no retry follows)').waitFor();
    expect(await log.locator('li').last().textContent()).toContain('(no retry follows)');
    expect(await log.locator('li').last().locator('.badge').textContent()).toBe('failed');
    // The request it sent: method and URL, the Standard Webhooks headers, the stored event's body.
    await page.getByText('Request sent', { exact: true }).click();
    await page.getByText(`POST ${failing.url}`).waitFor();
    const sentHeaders = page.getByRole('table', { name: 'Request headers' });
    expect(await sentHeaders.getByRole('row').filter({ hasText: 'webhook-id' }).locator('td').textContent()).toMatch(
      /^msg_/,
    );
    expect(JSON.parse((await page.getByLabel('Request body').textContent())!)).toMatchObject({
      type: 'invoice.paid',
      data: { currency: 'eur' },
    });
    await world.screenshot(page, '09-outbound');
    // Filtered by event type: none of another type; the four invoice.paid ones.
    await page.getByLabel('Event type').fill('customer.created');
    await page.getByRole('button', { name: 'Filter' }).click();
    await deliveries.getByText('No deliveries.').waitFor();
    await page.getByLabel('Event type').fill('invoice.paid');
    await page.getByRole('button', { name: 'Filter' }).click();
    // (The opened delivery's attempts are a row of their own.)
    await waitFor(() => deliveries.locator('tbody > tr:not([id^="log-"])').count(), {
      what: 'the four invoice.paid deliveries',
      until: (count) => count === 4,
    });
    await world.screenshot(page, '09a-outbound-by-event-type');
    // A page per endpoint: its settings, how its latest deliveries went, its log.
    await page.getByRole('article', { name: 'Workspace ws_acme' }).getByRole('link', { name: failing.url }).click();
    await page.getByRole('heading', { name: failing.url, level: 1 }).waitFor();
    await page.getByTestId('endpoint-summary').getByText('Of its latest 2 deliveries: 2 failed.').waitFor();
    await page
      .getByRole('table', { name: 'Deliveries, newest first' })
      .getByRole('cell', { name: failing.url })
      .first()
      .waitFor();
    await world.screenshot(page, '09b-outbound-endpoint');

    await page.getByRole('link', { name: 'Issues' }).click();
    const issue = page.getByRole('listitem').filter({ hasText: 'HTTP 500' });
    await issue.waitFor();
    expect(await issue.textContent()).toContain('2 occurrences');
    await world.screenshot(page, '10-issues');

    // Acknowledged, then resolved: it leaves the list; a replay that fails again brings it back, first seen kept.
    const issueOf = async () =>
      ((await world.call('/api/issues?resolved=true', TOKENS.viewer)).body.issues as Record<string, unknown>[]).find(
        (entry) => entry.errorClass === 'HTTP 500',
      )!;
    const before = await issueOf();
    await issue.getByRole('button', { name: 'Acknowledge…' }).click();
    expect(await confirmDialog(page)).toBe('1');
    await issue
      .getByTestId('issue-status')
      .getByText(/^Acknowledged by alice/)
      .waitFor();
    await issue.getByText('acknowledged', { exact: true }).waitFor();
    await world.screenshot(page, '10a-issue-acknowledged');
    await issue.getByRole('button', { name: 'Resolve…' }).click();
    expect(await confirmDialog(page)).toBe('1');
    await issue.waitFor({ state: 'detached' });
    expect(await world.mesh.db.collection('consoleIssues').findOne({ _id: before.id as never })).toMatchObject({
      status: 'resolved',
      statusBy: 'alice',
    });
    const replay = before.action as { action: string; params: Record<string, unknown> };
    const preview = await world.call(`/api/actions/${replay.action}/preview`, TOKENS.operator, {
      method: 'POST',
      body: { params: replay.params },
    });
    expect(
      (
        await world.call(`/api/actions/${replay.action}`, TOKENS.operator, {
          method: 'POST',
          body: { params: replay.params, confirmation: preview.body.confirmation },
        })
      ).status,
    ).toBe(200);
    const reopened = await waitFor(issueOf, {
      what: 'the replayed deliveries to fail again and reopen the issue',
      timeoutMs: 60_000,
      intervalMs: 250,
      until: (found) => found?.status === 'open' && found.reopened === true,
    });
    expect(reopened.firstSeen).toBe(before.firstSeen);
    expect(Date.parse(reopened.lastSeen as string)).toBeGreaterThan(Date.parse(before.lastSeen as string));
    await issue
      .getByTestId('issue-status')
      .getByText(/^Failing again since it was resolved by alice/)
      .waitFor({
        timeout: 30_000,
      });
    await world.screenshot(page, '10b-issue-reopened');

    await page.getByRole('link', { name: 'Audit' }).click();
    await page.getByRole('cell', { name: 'jobs.replay-dead' }).first().waitFor();
    await world.screenshot(page, '11-audit');
    await page.context().close();

    const viewer = await world.newPage();
    await signIn(viewer, TOKENS.viewer);
    await viewer.getByRole('link', { name: 'Webhook events' }).click();
    await viewer.getByRole('link', { name: `stripe:${GHOST.eventId}` }).waitFor();
    expect(await viewer.getByRole('button', { name: /Retry/ }).count()).toBe(0);
    await world.screenshot(viewer, '12-webhook-events-viewer');
    await viewer.context().close();
  });
});

describe('the endpoint portal in a browser', () => {
  it('lets a customer rotate an endpoint secret; the store holds it, and the next delivery is signed with it', async () => {
    const session = await world.call('/api/portal-sessions', TOKENS.issuer, {
      method: 'POST',
      body: { workspaceId: 'ws_acme', subject: 'user_42' },
    });
    expect(session.status).toBe(201);
    const page = await world.newPage();
    await page.goto(session.body.path as string);
    await page.getByRole('heading', { name: 'Your webhook endpoints' }).waitFor();
    expect(page.url()).not.toContain('token=');
    await page.getByRole('heading', { name: 'Event types you can subscribe to' }).waitFor();
    await page.getByText('invoice.paid', { exact: true }).first().waitFor();
    expect(await page.getByRole('cell', { name: /Another customer/ }).count()).toBe(0);
    await world.screenshot(page, '13-portal');

    const before = (await outboundCollections(world.mesh.db).endpoints.findOne({ _id: endpoint.endpoint.id }))!;
    const row = page.getByRole('row').filter({ hasText: 'Acme production' });
    await row.getByRole('button', { name: 'Rotate secret…' }).click();
    expect(await confirmDialog(page, '14-portal-confirm-rotate')).toBe('1');
    const shown = (await page.getByTestId('new-secret').textContent())!.trim();
    expect(shown).toMatch(/^whsec_/);
    await world.screenshot(page, '15-portal-rotated');

    const after = (await outboundCollections(world.mesh.db).endpoints.findOne({ _id: endpoint.endpoint.id }))!;
    expect(after.secrets[0]).toMatchObject({ secret: shown, expiresAt: null });
    expect(after.secrets[1].secret).toBe(before.secrets[0].secret);
    expect(after.secrets[1].expiresAt!.getTime() - Date.now()).toBeGreaterThan(23 * 3600 * 1000);
    expect(
      await world.mesh.db.collection('consoleAudit').findOne({ action: 'portal.rotate-secret', outcome: 'done' }),
    ).toMatchObject({ actor: 'portal:ws_acme:user_42', workspaceId: 'ws_acme' });

    // The customer edits their staging endpoint: a description and one subscribed type, through the confirmation.
    const staging = page.getByRole('row').filter({ hasText: failing.url });
    await staging.getByRole('button', { name: 'Edit' }).click();
    const form = page.getByRole('form', { name: `Edit ${failing.url}` });
    await form.getByLabel('Description (optional)').fill('Acme staging, paused for the migration');
    await form.getByRole('checkbox', { name: 'invoice.paid' }).check();
    await world.screenshot(page, '15a-portal-edit-endpoint');
    await form.getByRole('button', { name: 'Save changes…' }).click();
    expect(await confirmDialog(page)).toBe('1');
    await page.getByRole('form', { name: 'Add an endpoint' }).waitFor();
    expect(await outboundCollections(world.mesh.db).endpoints.findOne({ url: failing.url })).toMatchObject({
      description: 'Acme staging, paused for the migration',
      eventTypes: ['invoice.paid'],
    });
    expect(
      await world.mesh.db.collection('consoleAudit').findOne({ action: 'portal.update-endpoint', outcome: 'done' }),
    ).toMatchObject({ actor: 'portal:ws_acme:user_42' });

    // A test event from the portal reaches the endpoint signed with the new secret (the receiver knows only that one).
    healthy.setSecrets([shown]);
    const received = healthy.requests.length;
    await page.getByRole('button', { name: 'I saved it' }).click();
    await page.getByLabel('Event type').selectOption('webhook.test');
    await page.getByRole('button', { name: 'Send test event…' }).click();
    await confirmDialog(page);
    await healthy.waitUntil(
      () => healthy.requests.slice(received).some((request) => request.body.includes('"webhook.test"')),
      30_000,
      'the test event',
    );
    const test = healthy.requests.slice(received).find((request) => request.body.includes('"webhook.test"'))!;
    expect(test.verifiedWith).toBe(0);
    await page.getByRole('cell', { name: 'webhook.test' }).first().waitFor({ timeout: 20_000 });
    await world.screenshot(page, '16-portal-delivery-log');
    await page.context().close();
  });
});
