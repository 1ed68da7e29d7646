import type { GroupCommitOptions } from '@berth/messaging';

/** How `add` groups jobs into messages (the group commit of `GroupCommitQueue` in `@berth/messaging`). */
export interface BatchingOptions {
  /** Most jobs one message carries (default 100). `1` gives every job its own message. */
  maxJobsPerMessage?: number;
  /** Most body bytes one message carries (default 256 KiB); a bigger job still goes, alone. */
  maxBytesPerMessage?: number;
  /** Publishes of one subject awaiting their PubAck at once (default 2); later jobs gather meanwhile. */
  maxInFlightPerSubject?: number;
}

/** The queue's options for jobs: one key per job subject. */
export function jobGroupCommitOptions(options: BatchingOptions = {}): GroupCommitOptions {
  return {
    maxItemsPerMessage: options.maxJobsPerMessage,
    maxBytesPerMessage: options.maxBytesPerMessage,
    maxInFlightPerKey: options.maxInFlightPerSubject,
  };
}
