import type { CommandGroup } from './command';
import { cronsCommands } from './commands/crons';
import { deliveriesCommands } from './commands/deliveries';
import { endpointsCommands } from './commands/endpoints';
import { jobsCommands } from './commands/jobs';
import { statusCommands } from './commands/status';
import { webhooksCommands } from './commands/webhooks';

/** Every command group of `berth`; a new group (`webhooks`, `crons`) is one file in commands/ and one line here. */
export const COMMAND_GROUPS: CommandGroup[] = [
  statusCommands,
  jobsCommands,
  webhooksCommands,
  cronsCommands,
  endpointsCommands,
  deliveriesCommands,
];
