import { createLogger } from '@berth/logger';
import { runService } from './run-service';
import { startService } from './start-service';

/** A log destination that keeps every line's JSON. */
function lineSink(): { lines: Array<Record<string, unknown>>; destination: { write(line: string): void } } {
  const lines: Array<Record<string, unknown>> = [];
  return { lines, destination: { write: (line: string) => void lines.push(JSON.parse(line)) } };
}

async function status(port: number, path: string): Promise<number> {
  return (await fetch(`http://127.0.0.1:${port}${path}`)).status;
}

describe('startService', () => {
  afterEach(() => jest.useRealTimers());

  it('serves health before start resolves, is ready only once started and healthy, and stops in reverse order', async () => {
    const sink = lineSink();
    const closed: string[] = [];
    let healthy = true;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const starting = startService({
      name: 'shell-test',
      log: { level: 'info', format: 'json', destination: sink.destination },
      health: { port: 0, host: '127.0.0.1' },
      readyMessage: 'Shell test ready',
      stoppedMessage: 'Shell test stopped',
      async start({ own, registry, healthPort }) {
        expect(registry.getSingleMetric('process_cpu_user_seconds_total')).toBeDefined();
        // Probes find the process while it connects: alive, not ready.
        if (healthPort === undefined) throw new Error('no health server');
        expect(await status(healthPort, '/healthz')).toBe(200);
        expect(await status(healthPort, '/readyz')).toBe(503);
        own('mongo', async (name) => void closed.push(name));
        own('nats', async (name) => void closed.push(name));
        await released;
        return {
          healthy: () => healthy,
          readyFields: { concurrency: 4 },
          close: async () => void closed.push('app'),
        };
      },
    });
    release();
    const running = await starting;
    const healthPort = running.healthPort;
    if (healthPort === undefined) throw new Error('no health port');
    expect(await status(healthPort, '/healthz')).toBe(200);
    expect(await status(healthPort, '/readyz')).toBe(200);
    expect(await status(healthPort, '/metrics')).toBe(200);
    healthy = false;
    expect(await status(healthPort, '/readyz')).toBe(503);
    healthy = true;
    expect(sink.lines.find((line) => line.msg === 'Shell test ready')).toMatchObject({
      service: 'shell-test',
      concurrency: 4,
      healthPort,
    });

    await running.stop();
    expect(closed).toEqual(['app', 'nats', 'mongo']);
    await expect(status(healthPort, '/healthz')).rejects.toThrow();
    expect(sink.lines.at(-1)).toMatchObject({ msg: 'Shell test stopped' });
  });

  it('awaits a healthy() that returns a promise on /readyz, and ready() refuses to answer for it', async () => {
    let healthy = false;
    const running = await startService({
      name: 'shell-test',
      log: { level: 'silent' },
      health: { port: 0, host: '127.0.0.1' },
      readyMessage: 'Shell test ready',
      async start({ ready }) {
        return {
          healthy: async () => {
            await new Promise((resolve) => setImmediate(resolve));
            return healthy;
          },
          readyFields: { ready },
        };
      },
    });
    const healthPort = running.healthPort;
    if (healthPort === undefined) throw new Error('no health port');
    expect(await status(healthPort, '/readyz')).toBe(503);
    healthy = true;
    expect(await status(healthPort, '/readyz')).toBe(200);
    const ready = running.started.readyFields?.ready as () => boolean;
    expect(() => ready()).toThrow(/healthy\(\) returns a promise/);
    await running.stop();
  });

  it('closes what start opened, last first, and the health server when start throws', async () => {
    const closed: string[] = [];
    let port: number | undefined;
    const failure = startService({
      name: 'shell-test',
      log: { level: 'silent' },
      health: { port: 0, host: '127.0.0.1' },
      readyMessage: 'never',
      async start({ own, ready, healthPort }) {
        port = healthPort;
        own('mongo', async (name) => void closed.push(name));
        own('nats', async () => {
          closed.push('nats');
          throw new Error('drain failed');
        });
        own('nest', async (name) => void closed.push(name));
        expect(ready()).toBe(false);
        throw new Error('consumer missing');
      },
    });
    await expect(failure).rejects.toThrow('consumer missing');
    expect(closed).toEqual(['nest', 'nats', 'mongo']);
    if (port === undefined) throw new Error('no health server');
    await expect(status(port, '/healthz')).rejects.toThrow();
  });
});

describe('runService', () => {
  it('writes "<name> failed to start" and resolves 1 when the configuration is invalid', async () => {
    const written: string[] = [];
    const code = await runService({
      name: 'shell-test',
      config: () => {
        throw new Error('Invalid configuration:\n  - STRIPE_SECRET_KEY: required');
      },
      telemetry: () => ({ serviceName: 'shell-test' }),
      start: async () => ({ logger: createLogger({ service: 'shell-test', level: 'silent' }), stop: async () => {} }),
      errorOutput: { write: (text: string) => written.push(text) },
    });
    expect(code).toBe(1);
    expect(written.join('')).toMatch(
      /^shell-test failed to start: Error: Invalid configuration:\n {2}- STRIPE_SECRET_KEY/,
    );
  });

  it('stops the service once on its signal and resolves 0', async () => {
    const sink = lineSink();
    let stops = 0;
    let started!: () => void;
    const isStarted = new Promise<void>((resolve) => (started = resolve));
    const exit = runService({
      name: 'shell-test',
      config: () => ({ level: 'info' }),
      telemetry: () => ({ serviceName: 'shell-test' }),
      start: async (config) => {
        const running = {
          logger: createLogger({ service: 'shell-test', level: config.level, destination: sink.destination }),
          stop: async () => void (stops += 1),
        };
        started();
        return running;
      },
      signals: ['SIGUSR2'],
    });
    await isStarted;
    // The signal handlers are installed once start has resolved: after the microtasks of this turn.
    await new Promise((resolve) => setImmediate(resolve));
    process.emit('SIGUSR2', 'SIGUSR2');
    expect(await exit).toBe(0);
    expect(stops).toBe(1);
    expect(sink.lines.map((line) => line.msg)).toEqual(['SIGUSR2 received: stopping', 'Stopped']);
  });

  it('resolves 1 when the stop fails', async () => {
    let started!: () => void;
    const isStarted = new Promise<void>((resolve) => (started = resolve));
    const exit = runService({
      name: 'shell-test',
      config: () => undefined,
      telemetry: () => ({ serviceName: 'shell-test' }),
      start: async () => {
        started();
        return {
          logger: createLogger({ service: 'shell-test', level: 'silent' }),
          stop: async () => {
            throw new Error('mongo close failed');
          },
        };
      },
      signals: ['SIGUSR2'],
    });
    await isStarted;
    // The signal handlers are installed once start has resolved: after the microtasks of this turn.
    await new Promise((resolve) => setImmediate(resolve));
    process.emit('SIGUSR2', 'SIGUSR2');
    expect(await exit).toBe(1);
  });

  it('resolves 1 when the stop outlasts its deadline', async () => {
    const sink = lineSink();
    let started!: () => void;
    const isStarted = new Promise<void>((resolve) => (started = resolve));
    const exit = runService({
      name: 'shell-test',
      config: () => undefined,
      telemetry: () => ({ serviceName: 'shell-test' }),
      start: async () => {
        started();
        return {
          logger: createLogger({ service: 'shell-test', level: 'info', destination: sink.destination }),
          stop: () => new Promise<void>(() => undefined),
        };
      },
      signals: ['SIGUSR2'],
      stopDeadlineMs: () => 20,
    });
    await isStarted;
    await new Promise((resolve) => setImmediate(resolve));
    process.emit('SIGUSR2', 'SIGUSR2');
    expect(await exit).toBe(1);
    expect(sink.lines.map((line) => line.msg)).toEqual(['SIGUSR2 received: stopping', 'Shutdown took too long']);
  });

  it('clears the deadline of a stop that finished in time', async () => {
    // The deadline's timer runs on jest's clock, moved past the deadline once the stop has finished.
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    const sink = lineSink();
    let started!: () => void;
    const isStarted = new Promise<void>((resolve) => (started = resolve));
    const exit = runService({
      name: 'shell-test',
      config: () => undefined,
      telemetry: () => ({ serviceName: 'shell-test' }),
      start: async () => {
        started();
        return {
          logger: createLogger({ service: 'shell-test', level: 'info', destination: sink.destination }),
          stop: async () => {},
        };
      },
      signals: ['SIGUSR2'],
      stopDeadlineMs: () => 20,
    });
    await isStarted;
    await new Promise((resolve) => setImmediate(resolve));
    process.emit('SIGUSR2', 'SIGUSR2');
    expect(await exit).toBe(0);
    // Past the deadline: nothing is logged once the stop has finished.
    jest.advanceTimersByTime(40);
    expect(sink.lines.map((line) => line.msg)).toEqual(['SIGUSR2 received: stopping', 'Stopped']);
  });
});
