import type { CommandGroup } from '../command';
import { cancelCommand, cancelledCommand } from './jobs/cancel.command';
import { deadListCommand } from './jobs/dead-list.command';
import { deadReplayCommand } from './jobs/dead-replay.command';
import { queuesCommand } from './jobs/queues.command';

/** `berth jobs …`: background and cron jobs. */
export const jobsCommands: CommandGroup = {
  name: 'jobs',
  description: 'Background and cron jobs: queue depths, dead letters, cancellation',
  commands: [queuesCommand, deadListCommand, deadReplayCommand, cancelCommand, cancelledCommand],
};
