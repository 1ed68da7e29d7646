/**
 * The process supervisor of `npm start`: runs each service as a child, prints its output prefixed with its name,
 * restarts it with backoff when it exits unexpectedly (printing why), and stops every one in order on request.
 * What compose's `restart: unless-stopped` and Kubernetes' restartPolicy do for the containers.
 */
import { spawn, type ChildProcess } from 'node:child_process';

/** How one service is run. */
export interface SupervisedService {
  name: string;
  command: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** Options for {@link Supervisor}. */
export interface SupervisorOptions {
  /** Where output lines and the supervisor's own notes go (default: stdout). */
  write?: (line: string) => void;
  /** First restart delay; doubles per consecutive crash up to `maxBackoffMs` (default 1000). */
  initialBackoffMs?: number;
  /** Default 30000. */
  maxBackoffMs?: number;
  /** A run that lasted this long resets the backoff (default 60000). */
  stableAfterMs?: number;
  /** How long a service may drain after SIGTERM before it is killed (default 45000, compose's stop_grace_period). */
  stopGraceMs?: number;
}

interface Slot {
  service: SupervisedService;
  child?: ChildProcess;
  exited?: Promise<void>;
  restarts: number;
  backoffMs: number;
  timer?: NodeJS.Timeout;
  lastLine?: string;
}

/** The supervised services; one instance per `npm start`. */
export class Supervisor {
  private readonly slots: Slot[] = [];
  private stopping = false;
  private readonly write: (line: string) => void;

  constructor(private readonly options: SupervisorOptions = {}) {
    this.write = options.write ?? ((line) => process.stdout.write(`${line}\n`));
  }

  /** Starts a service and keeps it running until {@link stop}. */
  add(service: SupervisedService): void {
    const slot: Slot = { service, restarts: 0, backoffMs: this.options.initialBackoffMs ?? 1000 };
    this.slots.push(slot);
    this.launch(slot);
  }

  /** Restarts so far per service name. */
  restarts(): Record<string, number> {
    return Object.fromEntries(this.slots.map((slot) => [slot.service.name, slot.restarts]));
  }

  /** The names of the services added, in order. */
  names(): string[] {
    return this.slots.map((slot) => slot.service.name);
  }

  /** The running process id of a service, if it runs now. */
  pidOf(name: string): number | undefined {
    const child = this.slots.find((slot) => slot.service.name === name)?.child;
    return child && child.exitCode === null && child.signalCode === null ? child.pid : undefined;
  }

  /**
   * Stops every service: no more restarts, SIGTERM to all at once (each drains: stops pulling, finishes what it
   * runs), SIGKILL to any still running after the grace period. Resolves when all have exited.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.slots.map((slot) => this.stopSlot(slot)));
  }

  /** SIGKILLs every service at once (a second Ctrl-C). */
  kill(): void {
    this.stopping = true;
    for (const slot of this.slots) {
      clearTimeout(slot.timer);
      slot.child?.kill('SIGKILL');
    }
  }

  private launch(slot: Slot): void {
    const { service } = slot;
    const [command, ...args] = service.command;
    const started = Date.now();
    const child = spawn(command === 'node' ? process.execPath : command, args, {
      cwd: service.cwd,
      env: service.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    slot.child = child;
    const prefix = `[${service.name}]`;
    let partial = '';
    const echo = (chunk: Buffer): void => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (line.length === 0) continue;
        slot.lastLine = line;
        this.write(`${prefix} ${line}`);
      }
    };
    child.stdout?.on('data', echo);
    child.stderr?.on('data', echo);
    slot.exited = new Promise<void>((done) => {
      child.once('error', (error) => {
        this.write(`${prefix} could not start: ${error.message}`);
      });
      child.once('close', (code, signal) => {
        if (partial) this.write(`${prefix} ${partial}`);
        done();
        this.onExit(slot, code, signal, Date.now() - started);
      });
    });
  }

  private onExit(slot: Slot, code: number | null, signal: NodeJS.Signals | null, ranMs: number): void {
    const prefix = `[${slot.service.name}]`;
    const reason = signal ? `killed by ${signal}` : `exit code ${code}`;
    if (this.stopping) {
      this.write(`${prefix} stopped (${reason})`);
      return;
    }
    if (ranMs >= (this.options.stableAfterMs ?? 60000)) slot.backoffMs = this.options.initialBackoffMs ?? 1000;
    const delay = slot.backoffMs;
    slot.backoffMs = Math.min(delay * 2, this.options.maxBackoffMs ?? 30000);
    slot.restarts += 1;
    const last = slot.lastLine ? `; last output: ${slot.lastLine.slice(0, 300)}` : '';
    this.write(
      `${prefix} exited unexpectedly (${reason}) after ${(ranMs / 1000).toFixed(1)} s${last}; restarting in ${(delay / 1000).toFixed(1)} s (restart ${slot.restarts})`,
    );
    slot.timer = setTimeout(() => {
      if (!this.stopping) this.launch(slot);
    }, delay);
  }

  private async stopSlot(slot: Slot): Promise<void> {
    clearTimeout(slot.timer);
    const child = slot.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => {
      this.write(
        `[${slot.service.name}] still running ${((this.options.stopGraceMs ?? 45000) / 1000).toFixed(0)} s after SIGTERM: killing it`,
      );
      child.kill('SIGKILL');
    }, this.options.stopGraceMs ?? 45000);
    await slot.exited;
    clearTimeout(timer);
  }
}
