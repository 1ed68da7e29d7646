import type { CommandGroup } from '../command';
import { cancelCommand, cancelledCommand } from './jobs/cancel.command';
import { completedCommand } from './jobs/completed.command';
import { promoteCommand } from './jobs/promote.command';
import { deadListCommand } from './jobs/dead-list.command';
import { deadReplayCommand } from './jobs/dead-replay.command';
import { limitedCommand } from './jobs/limited.command';
import { whyCommand } from './jobs/why.command';
import { queuesCommand } from './jobs/queues.command';

/** `berth jobs …`: background and cron jobs. */
export const jobsCommands: CommandGroup = {
  name: 'jobs',
  description: 'Background and cron jobs: queue depths, completed jobs, dead letters, cancellation, promotion, limits',
  commands: [
    queuesCommand,
    deadListCommand,
    deadReplayCommand,
    cancelCommand,
    cancelledCommand,
    promoteCommand,
    completedCommand,
    limitedCommand,
    whyCommand,
  ],
};
