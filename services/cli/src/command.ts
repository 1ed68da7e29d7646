import type { ParseArgsConfig } from 'node:util';
import type { Db } from 'mongodb';
import type { HealthTarget } from '@berth/config';
import type { Messaging } from '@berth/messaging';
import type { BerthLogger } from '@berth/logger';

/** What a command can use: where to write, and a NATS connection opened on first use (closed by the CLI). */
export interface CommandContext {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Logs to stderr, so `--json` output stays clean. */
  logger: BerthLogger;
  messaging(): Promise<Messaging>;
  /** The MongoDB database of the webhook inbox (`MONGO_URL`, `MONGO_DB`), connected on first use (closed by the CLI). */
  db(): Promise<Db>;
  /** Every service's health endpoint (`BERTH_HEALTH_URLS`, or the running `npm start`'s file). */
  health: HealthTarget[];
  /** Where the settings came from: environment, `npm start`'s file, defaults. */
  source: string;
}

/** Parsed options and positional arguments of one command. */
export interface CommandArgs {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
}

/** One command: `berth <group> <path…> [positionals] [--options]`. */
export interface Command {
  /** Words after the group name, e.g. `['dead', 'list']`. */
  path: string[];
  /** Arguments after the path, for help: `<id|--all> [--queue q] [--json]`. */
  usage: string;
  description: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /** Resolves with the exit code. Throw {@link UsageError} for a wrong invocation. */
  run(args: CommandArgs, context: CommandContext): Promise<number>;
}

/** A group of commands in its own file: `berth jobs …`, `berth webhooks …`, `berth crons …`. */
export interface CommandGroup {
  name: string;
  description: string;
  commands: Command[];
}

/** A wrong invocation: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
