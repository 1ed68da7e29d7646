/**
 * The console's Jobs page in a real browser (Debian's chromium through playwright-core), against the mesh on real
 * servers: a queue's last completed jobs (data, the attempt that succeeded, how long it took), and a delayed job run
 * now from its row through the confirmed dialog, which the worker then runs once and records as completed; the
 * action is audited. `jobs.promote` is checked black-box over HTTP for roles and confirmation. Screenshots are
 * saved under test/console/screenshots/ (gitignored), each page checked with axe-core.
 */
import { waitFor } from '@berth/local-infra/testing';
import type { Page } from 'playwright-core';
import { explainJob, getMessageQueueToken, listCompletedJobs, type MessageQueueService } from '@berth/jobs';
import { RECEIPTS_QUEUE, receiptsWorld, SendReceiptJob } from './receipts-job';
import { signIn, startConsoleWorld, TOKENS, type ConsoleWorld } from './support';

jest.setTimeout(180_000);

let world: ConsoleWorld;
let delayedJobId: string;
const ranTimes = new Map<string, number>();

beforeAll(async () => {
  world = await startConsoleWorld('console_jobs_browser');
  receiptsWorld.record = async (receiptId) => void ranTimes.set(receiptId, (ranTimes.get(receiptId) ?? 0) + 1);
  const queue = world.jobs.get<MessageQueueService>(getMessageQueueToken(RECEIPTS_QUEUE));
  const done = await queue.add(SendReceiptJob.name, { receiptId: 'rcpt_done' });
  await waitFor(() => listCompletedJobs(world.mesh.messaging, RECEIPTS_QUEUE), {
    what: 'the first receipt to be recorded as completed',
    until: (completed) => completed.some((job) => job.jobId === done.id),
  });
  delayedJobId = (
    await queue.add(SendReceiptJob.name, { receiptId: 'rcpt_tomorrow' }, { delayInMilliseconds: 86_400_000 })
  ).id;
}, 420_000);

afterAll(async () => {
  await world?.stop();
});

async function confirmDialog(page: Page, screenshot: string): Promise<string> {
  const dialog = page.getByRole('dialog');
  await dialog.getByTestId('preview-count').waitFor();
  const count = await dialog.getByTestId('preview-count').textContent();
  await world.screenshot(page, screenshot);
  await dialog.getByRole('button', { name: /^Confirm/ }).click();
  await dialog.waitFor({ state: 'hidden' });
  return count ?? '';
}

describe('jobs.promote over the API', () => {
  it('refuses a viewer and a run without confirmation; previews nothing to do for a job that is not delayed', async () => {
    const params = { queue: RECEIPTS_QUEUE, jobId: delayedJobId };
    const call = (path: string, token: string, body: unknown) => world.call(path, token, { method: 'POST', body });
    expect((await call('/api/actions/jobs.promote/preview', TOKENS.viewer, { params })).status).toBe(403);
    expect((await call('/api/actions/jobs.promote', TOKENS.operator, { params })).status).toBe(428);
    expect(
      await call('/api/actions/jobs.promote/preview', TOKENS.operator, {
        params: { queue: RECEIPTS_QUEUE, jobId: 'no-such-job' },
      }),
    ).toMatchObject({ status: 200, body: { count: 0, confirmation: null } });
    expect((await explainJob(world.mesh.messaging, RECEIPTS_QUEUE, delayedJobId)).state).toBe('delayed');
  });
});

describe('the Jobs page in a browser', () => {
  it("lists a queue's completed jobs, and runs a delayed job now from its row, once", async () => {
    const page = await world.newPage();
    await signIn(page, TOKENS.operator);
    await page.getByRole('link', { name: 'Jobs' }).click();
    await page.getByRole('button', { name: `Jobs of ${RECEIPTS_QUEUE}` }).click();

    const completed = page.getByRole('table', { name: `Completed in ${RECEIPTS_QUEUE}, newest first` });
    const done = completed.getByRole('row').filter({ hasText: 'rcpt_done' });
    await done.waitFor();
    expect(await done.locator('.badge').textContent()).toBe('completed');
    expect(await done.textContent()).toContain(SendReceiptJob.name);
    expect(await done.textContent()).toMatch(/1 of \d+/);
    expect(await done.textContent()).toMatch(/\d+(\.\d)? m?s/);

    const jobs = page.getByRole('table', { name: `Jobs of ${RECEIPTS_QUEUE}`, exact: true });
    const tomorrow = jobs.getByRole('row').filter({ hasText: 'rcpt_tomorrow' });
    await tomorrow.waitFor();
    expect(await tomorrow.locator('.badge').textContent()).toBe('delayed');
    await world.screenshot(page, '20-jobs-completed-and-delayed');

    // Dismissing the confirmation changes nothing.
    await tomorrow.getByRole('button', { name: 'Run now…' }).click();
    await page.getByRole('dialog').getByTestId('preview-count').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    expect((await explainJob(world.mesh.messaging, RECEIPTS_QUEUE, delayedJobId)).state).toBe('delayed');

    await tomorrow.getByRole('button', { name: 'Run now…' }).click();
    expect(await confirmDialog(page, '21-confirm-promote')).toBe('1');
    await page
      .getByRole('status')
      .filter({ hasText: `Job ${delayedJobId} of ${RECEIPTS_QUEUE} runs now` })
      .waitFor();
    await waitFor(() => ranTimes.get('rcpt_tomorrow'), { what: 'the promoted receipt to run', timeoutMs: 20_000 });

    // It shows among the completed jobs (the table refreshes itself; "Refresh now" asks at once).
    const promoted = completed.getByRole('row').filter({ hasText: 'rcpt_tomorrow' });
    await waitFor(
      async () => {
        await page
          .getByRole('region', { name: `Completed jobs of ${RECEIPTS_QUEUE}` })
          .getByRole('button', { name: 'Refresh now' })
          .click();
        return promoted.count();
      },
      { what: 'the promoted job among the completed ones', timeoutMs: 20_000, intervalMs: 500, until: (n) => n === 1 },
    );
    await jobs.getByRole('row').filter({ hasText: 'rcpt_tomorrow' }).waitFor({ state: 'detached', timeout: 20_000 });
    await world.screenshot(page, '22-jobs-after-promote');

    const records = await listCompletedJobs(world.mesh.messaging, RECEIPTS_QUEUE);
    expect(records.filter((job) => job.jobId === delayedJobId)).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'completed', data: { receiptId: 'rcpt_tomorrow' } }),
    ]);
    expect(ranTimes.get('rcpt_tomorrow')).toBe(1);
    expect(
      await world.mesh.db.collection('consoleAudit').findOne({ action: 'jobs.promote', outcome: 'done' }),
    ).toMatchObject({ actor: 'alice', params: { queue: RECEIPTS_QUEUE, jobId: delayedJobId } });
    await page.context().close();
  });
});
