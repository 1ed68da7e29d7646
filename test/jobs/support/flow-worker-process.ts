import type { ManagedProcess } from '@berth/local-infra';
import type { Messaging } from '@berth/messaging';
import { flowEventsSubject, type FlowEvent } from '../fixtures/flow-events';
import { captureLogs, startNats, type CapturedLogs, type NatsFixture } from './infra';
import { startFixtureWorker } from './worker-process';

/** Environment of one flow worker process (see test/jobs/fixtures/flow-worker.ts). */
export interface FlowWorkerEnv {
  NATS_URL: string;
  WORKER_NAME: string;
  FLOW_QUEUE: string;
  WORKER_CONCURRENCY?: string;
  WORKER_ACK_WAIT_MS?: string;
  POISON_LIMIT?: string;
  /** `<limit>/<perMs>` */
  QUEUE_RATE_LIMIT?: string;
  /** `1`: the queue serves priorities. */
  QUEUE_PRIORITIES?: '0' | '1';
  /** `0`: the queue does not serve fair jobs (`fairness: false`); unset, the default: it does. */
  QUEUE_FAIRNESS?: '0' | '1';
}

/** Starts test/jobs/fixtures/flow-worker.ts in a child Node process and resolves once it is ready. */
export function startFlowWorker(env: FlowWorkerEnv): Promise<ManagedProcess> {
  return startFixtureWorker('flow-worker.ts', env);
}

/**
 * Starts `count` flow workers of `env.FLOW_QUEUE` at once and adds them to `started` (which the test stops after
 * it), each named `<queue>-w<n>` with `n` counted over `started`, so names stay distinct across calls.
 */
export async function startFlowWorkers(
  count: number,
  env: Omit<FlowWorkerEnv, 'WORKER_NAME'>,
  started: ManagedProcess[],
): Promise<void> {
  const first = started.length + 1;
  started.push(
    ...(await Promise.all(
      Array.from({ length: count }, (_, n) =>
        startFlowWorker({ ...env, WORKER_NAME: `${env.FLOW_QUEUE}-w${first + n}` }),
      ),
    )),
  );
}

/** Collects the handler events the flow workers of a queue report; stop with `close`. */
export function collectFlowEvents(messaging: Messaging, queue: string): { events: FlowEvent[]; close(): void } {
  const events: FlowEvent[] = [];
  const subscription = messaging.nc.subscribe(flowEventsSubject(queue), {
    callback: (error, message) => {
      if (!error) events.push(message.json<FlowEvent>());
    },
  });
  return { events, close: () => subscription.unsubscribe() };
}

/** What {@link flowWorkerFixture} gives a test file. */
export interface FlowWorkerFixture {
  logs: CapturedLogs;
  /** The file's nats-server and connection, once `beforeAll` has run. */
  readonly nats: NatsFixture;
  /** The flow workers the file started, stopped after it. */
  workers: ManagedProcess[];
  /** Starts `count` flow workers of `env.FLOW_QUEUE` on the file's nats-server (see {@link startFlowWorkers}). */
  startWorkers(count: number, env: Omit<FlowWorkerEnv, 'WORKER_NAME' | 'NATS_URL'>): Promise<void>;
}

/**
 * One nats-server for a test file of flow worker processes, started before its tests; after them, every worker it
 * started is stopped (within `stopMs` each), then the server. Call at the top level of the file.
 */
export function flowWorkerFixture(logLevel: string, { stopMs = 5000 }: { stopMs?: number } = {}): FlowWorkerFixture {
  const logs = captureLogs(logLevel);
  const workers: ManagedProcess[] = [];
  let nats: NatsFixture | undefined;
  beforeAll(async () => {
    nats = await startNats(logs.logger);
  });
  afterAll(async () => {
    for (const worker of workers) await worker.stop(stopMs).catch(() => undefined);
    await nats?.stop();
  });
  const started = (): NatsFixture => {
    if (!nats) throw new Error('flowWorkerFixture: nats-server is started in beforeAll');
    return nats;
  };
  return {
    logs,
    workers,
    get nats() {
      return started();
    },
    startWorkers: (count, env) => startFlowWorkers(count, { ...env, NATS_URL: started().server.url }, workers),
  };
}
