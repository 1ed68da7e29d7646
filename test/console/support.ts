/**
 * The console's browser tests' world: the mesh on real servers (nats-server, FerretDB, the Stripe stand-in, the
 * gateway and billing-sync as child processes), the dispatcher and a job worker in-process on the same servers, the
 * console as a child process (`services/console/src/main.ts`, its front end built into a fresh folder), and
 * Debian's chromium driven by playwright-core.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { chromium, type Browser, type Page } from 'playwright-core';
import { spawnManaged, type ManagedProcess } from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import { connectMessaging } from '@berth/messaging';
import { loadConfig as loadDispatcherConfig } from '@berth/dispatcher/src/config';
import { runDispatcher, type RunningDispatcher } from '@berth/dispatcher/src/run-dispatcher';
import { hashConsoleToken } from '@berth/console/src/auth/console-tokens';
import { startMesh, type Mesh } from '../support/mesh';
import { installJaeger, startJaeger } from '../observability/support/jaeger';
import { repoRoot } from '../support/service-process';
import { createJobsApp } from '../jobs/support/jobs-app';
import { RECEIPTS_QUEUE, SendReceiptJob } from './receipts-job';

/** Where the test run saves a screenshot of every page (gitignored). */
export const SCREENSHOT_DIR = join(repoRoot, 'test', 'console', 'screenshots');

/** Jaeger is built once per machine (minutes, see deploy/local/install-jaeger.sh); cached after that. */
export const JAEGER_INSTALL_TIMEOUT_MS = 20 * 60_000;

/** The dispatcher's management API token of the test (the dispatcher refuses to start without one). */
const DISPATCHER_TOKEN = 'console-test-dispatcher-token-0123456789abcdef';

/** The console tokens of the test: one per role. */
export const TOKENS = {
  operator: `op-${randomBytes(16).toString('hex')}`,
  viewer: `view-${randomBytes(16).toString('hex')}`,
  issuer: `iss-${randomBytes(16).toString('hex')}`,
};

/** Everything one test file runs. */
export interface ConsoleWorld {
  mesh: Mesh;
  dispatcher: RunningDispatcher;
  jobs: INestApplicationContext;
  console: ManagedProcess;
  consoleUrl: string;
  browser: Browser;
  /** A new page at a laptop's size (1366 × 768). */
  newPage(): Promise<Page>;
  /**
   * Saves a full-page screenshot as `<name>.png`, then checks the page with axe-core (WCAG 2 A and AA rules) and
   * throws on any serious or critical violation: missing labels and names, contrast, roles, keyboard traps.
   */
  screenshot(page: Page, name: string): Promise<void>;
  /** Calls the console API with a bearer token. */
  call(
    path: string,
    token: string | undefined,
    init?: { method?: string; body?: unknown },
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  stop(): Promise<void>;
}

/** Starts the world; on failure stops what started and rethrows. */
export async function startConsoleWorld(name: string): Promise<ConsoleWorld> {
  const stops: (() => Promise<unknown>)[] = [];
  const failures: unknown[] = [];
  const stop = async () => {
    for (const step of stops.splice(0).reverse()) await step().catch((error: unknown) => failures.push(error));
    // The mesh's stop fails on a NATS permission violation: that one must fail the test file.
    const violation = failures.splice(0).find((error) => /permission violation/.test(String(error)));
    if (violation) throw violation;
  };
  try {
    // Traces go to a real Jaeger (in-memory), which the console reads for the event page's waterfall.
    const jaeger = await startJaeger({ binary: await installJaeger(JAEGER_INSTALL_TIMEOUT_MS) });
    stops.push(() => jaeger.stop());
    // Each span exported within 200 ms instead of the default 5 s, so the waterfall has it when the page asks.
    const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint, OTEL_BSP_SCHEDULE_DELAY: '200' };
    const mesh = await startMesh({
      name,
      services: ['gateway', 'billing-sync'],
      env: { gateway: tracing, 'billing-sync': { ...tracing, HEALTH_PORT: '0', HEALTH_HOST: '127.0.0.1' } },
    });
    stops.push(() => mesh.stop());
    const env = {
      MONGO_URL: mesh.ferret.url,
      MONGO_DB: mesh.db.databaseName,
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
    };
    const dispatcher = await runDispatcher(
      loadDispatcherConfig({
        ...env,
        NATS_URL: mesh.natsUrlAs('dispatcher'),
        HOST: '127.0.0.1',
        PORT: '0',
        DISPATCHER_API_TOKEN: DISPATCHER_TOKEN,
        OUTBOUND_ALLOWED_PORTS: '1-65535',
        OUTBOUND_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8',
        OUTBOUND_RETRY_SCHEDULE_MS: '0,100,200',
        OUTBOUND_RETRY_JITTER: '0',
        DISPATCHER_ENDPOINT_RELOAD_MS: '500',
      }),
    );
    stops.push(() => dispatcher.stop());
    // The product's job worker, as the app-worker's NATS user (deploy/nats/auth.conf).
    const worker = await connectMessaging({
      servers: mesh.natsUrlAs('app-worker'),
      name: 'console-test-jobs',
      logger: createLogger({ service: 'console-test-jobs', level: 'silent' }),
    });
    stops.push(() => worker.close());
    const jobs = await createJobsApp({
      messaging: worker,
      logger: createLogger({ service: 'console-test-jobs', level: 'silent' }),
      queues: [RECEIPTS_QUEUE],
      providers: [SendReceiptJob],
    });
    stops.push(() => jobs.close());

    const webDir = await mkdtemp(join(tmpdir(), 'berth-console-web-'));
    stops.push(() => rm(webDir, { recursive: true, force: true }));
    const consoleProcess = spawnManaged({
      command: process.execPath,
      args: [
        '-r',
        join(repoRoot, 'deploy', 'runtime', 'ts-hook.js'),
        join(repoRoot, 'services', 'console', 'src', 'main.ts'),
      ],
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        NODE_ENV: 'test',
        ...env,
        // As compose and Kubernetes run it: the operator's NATS user.
        NATS_URL: mesh.natsUrlAs('operator'),
        LOG_LEVEL: 'info',
        HOST: '127.0.0.1',
        PORT: '0',
        CONSOLE_TOKENS: JSON.stringify([
          { name: 'alice', role: 'operator', sha256: hashConsoleToken(TOKENS.operator) },
          { name: 'victor', role: 'viewer', sha256: hashConsoleToken(TOKENS.viewer) },
          { name: 'product-backend', role: 'issuer', sha256: hashConsoleToken(TOKENS.issuer) },
        ]),
        CONSOLE_SIGNING_KEY: randomBytes(32).toString('base64'),
        DISPATCHER_URL: `http://127.0.0.1:${dispatcher.port}`,
        DISPATCHER_API_TOKEN: DISPATCHER_TOKEN,
        CONSOLE_HEALTH_URLS: JSON.stringify({
          gateway: `${mesh.gatewayUrl}/readyz`,
          dispatcher: `http://127.0.0.1:${dispatcher.port}/readyz`,
        }),
        JAEGER_UI_URL: jaeger.queryUrl,
        CONSOLE_WEB_DIR: webDir,
        CONSOLE_SAMPLE_INTERVAL_MS: '1000',
      },
    });
    stops.push(() => consoleProcess.stop(5000));
    const [, port] = await consoleProcess.waitForLine(/Console listening on :(\d+)/, 120_000);
    const consoleUrl = `http://127.0.0.1:${port}`;

    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    stops.push(() => browser.close());
    await mkdir(SCREENSHOT_DIR, { recursive: true });

    return {
      mesh,
      dispatcher,
      jobs,
      console: consoleProcess,
      consoleUrl,
      browser,
      async newPage() {
        const context = await browser.newContext({ viewport: { width: 1366, height: 768 }, baseURL: consoleUrl });
        return context.newPage();
      },
      async screenshot(page, file) {
        await page.screenshot({ path: join(SCREENSHOT_DIR, `${file}.png`), fullPage: true });
        const violations = await accessibilityViolations(page);
        if (violations.length > 0) throw new Error(`${file}: accessibility violations:\n${violations.join('\n')}`);
      },
      async call(path, token, init = {}) {
        const response = await fetch(`${consoleUrl}${path}`, {
          method: init.method ?? 'GET',
          headers: {
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          body: init.body === undefined ? undefined : JSON.stringify(init.body),
        });
        const text = await response.text();
        return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * The serious and critical WCAG 2 A/AA violations axe-core finds on the page. Injected through the DevTools
 * protocol, which the page's Content-Security-Policy does not apply to, so the policy stays on during the test.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const results = (await page.evaluate(
    "axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })",
  )) as {
    violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[];
  };
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes
          .slice(0, 3)
          .map((node) => node.target.join(' '))
          .join(', ')}`,
    );
}

/** Signs in to the console in `page` with a token, through the sign-in form. */
export async function signIn(page: Page, token: string): Promise<void> {
  await page.goto('/');
  await page.getByLabel('Console token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Pages' }).waitFor();
}
