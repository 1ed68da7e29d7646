import type { CommandGroup } from '../command';
import { statusCommand } from './status/status.command';

/** `berth status`: the mesh at a glance. */
export const statusCommands: CommandGroup = {
  name: 'status',
  description: "The mesh at a glance: every service's readiness, consumer lag, the oldest unprocessed webhook event",
  commands: [statusCommand],
};
