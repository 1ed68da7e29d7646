import type { CommandGroup } from './command';
import { jobsCommands } from './commands/jobs';

/** Every command group of `berth`; a new group (`webhooks`, `crons`) is one file in commands/ and one line here. */
export const COMMAND_GROUPS: CommandGroup[] = [jobsCommands];
