import type { CommandGroup } from '../command';
import { cronsListCommand } from './crons/list.command';

/** `berth crons …`: the cron schedules the services registered, and the scheduler's leader. */
export const cronsCommands: CommandGroup = {
  name: 'crons',
  description: 'Cron schedules: pattern, zone, last and next tick, current scheduler leader',
  commands: [cronsListCommand],
};
