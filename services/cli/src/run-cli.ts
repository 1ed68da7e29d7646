import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import { createLogger } from '@berth/logger';
import { connectMessaging, describeError, type Messaging } from '@berth/messaging';
import { UsageError, type Command, type CommandGroup } from './command';
import { COMMAND_GROUPS } from './command-groups';
import { DEFAULT_MONGO_DB, DEFAULT_MONGO_URL, type CliConfig } from './config';
import { terminalSafe } from './output';

/** Where the CLI writes, and what it runs. */
export interface RunCliOptions {
  config: CliConfig;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  groups?: CommandGroup[];
}

/**
 * Runs `berth <argv…>` and resolves with the exit code: 0 done, 1 failed, 2 wrong invocation. Everything is written
 * through {@link terminalSafe}: what it prints comes partly from providers and customers.
 */
export async function runCli(argv: string[], unsafeOptions: RunCliOptions): Promise<number> {
  const options = {
    ...unsafeOptions,
    stdout: terminalSafe(unsafeOptions.stdout),
    stderr: terminalSafe(unsafeOptions.stderr),
  };
  const groups = options.groups ?? COMMAND_GROUPS;
  const [groupName, ...rest] = argv;
  if (!groupName || groupName === 'help' || groupName === '--help' || groupName === '-h') {
    options.stdout.write(helpText(groups));
    return 0;
  }
  const group = groups.find((candidate) => candidate.name === groupName);
  if (!group) {
    options.stderr.write(`berth: unknown command ${JSON.stringify(groupName)}\n\n${helpText(groups)}`);
    return 2;
  }
  const runsBare = group.commands.some((command) => command.path.length === 0);
  if ((rest.length === 0 && !runsBare) || rest.includes('--help') || rest.includes('-h')) {
    options.stdout.write(groupHelp(group));
    return 0;
  }
  const command = findCommand(group, rest);
  if (!command) {
    options.stderr.write(
      `berth ${group.name}: unknown command ${JSON.stringify(rest.join(' '))}\n\n${groupHelp(group)}`,
    );
    return 2;
  }

  let messaging: Messaging | undefined;
  let mongo: MongoClient | undefined;
  const logger = createLogger({ service: 'berth', level: 'warn', destination: options.stderr as never });
  try {
    const parsed = parseArgs({
      args: rest.slice(command.path.length),
      options: command.options,
      allowPositionals: true,
      strict: true,
    });
    return await command.run(parsed, {
      stdout: options.stdout,
      stderr: options.stderr,
      logger,
      health: options.config.health ?? [],
      source: options.config.source ?? 'environment',
      messaging: async () =>
        (messaging ??= await connectMessaging({
          servers: options.config.natsUrl,
          name: 'berth-cli',
          logger,
          timeoutMs: 10000,
        })),
      db: async () => {
        mongo ??= await MongoClient.connect(options.config.mongoUrl ?? DEFAULT_MONGO_URL, {
          serverSelectionTimeoutMS: 10000,
          appName: 'berth-cli',
        });
        return mongo.db(options.config.mongoDb ?? DEFAULT_MONGO_DB);
      },
    });
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      options.stderr.write(
        `berth ${group.name} ${command.path.join(' ')}: ${(error as Error).message}\nUsage: berth ${group.name} ${command.path.join(' ')} ${command.usage}\n`,
      );
      return 2;
    }
    options.stderr.write(`berth ${group.name} ${command.path.join(' ')}: ${describeError(error)}\n`);
    return 1;
  } finally {
    await messaging?.close().catch(() => undefined);
    await mongo?.close().catch(() => undefined);
  }
}

/** The command whose path is the longest prefix of the arguments. */
function findCommand(group: CommandGroup, args: string[]): Command | undefined {
  return [...group.commands]
    .sort((a, b) => b.path.length - a.path.length)
    .find((command) => command.path.every((word, index) => args[index] === word));
}

function groupHelp(group: CommandGroup): string {
  return `berth ${group.name}: ${group.description}\n\n${group.commands.map((command) => `  berth ${group.name} ${command.path.join(' ')} ${command.usage}\n      ${command.description}`).join('\n')}\n`;
}

function helpText(groups: CommandGroup[]): string {
  return `berth: operate Berth (NATS_URL says which NATS, MONGO_URL and MONGO_DB which inbox, BERTH_HEALTH_URLS where the services answer; unset, they come from a running npm start's .data/berth-local.json, else nats://127.0.0.1:4222, ${DEFAULT_MONGO_URL} and its database or ${DEFAULT_MONGO_DB})\n\n${groups.map(groupHelp).join('\n')}`;
}
