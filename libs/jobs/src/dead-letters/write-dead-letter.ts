import { publishMessage, type PublishResult } from '@berth/messaging';
import type { JetStreamClient } from '@nats-io/jetstream';
import { DEAD_LETTERS_STREAM_NAME, deadLetterSubject } from '../names';
import type { DeadLetter } from './dead-letter';

/**
 * Copies a failed job to `dead.jobs.<queue>.<name>` and resolves once JetStream stored it. The message id is
 * `dead:<jobId>:<attempts>`, so copying the same failure twice (a crash before the job's message was terminated)
 * stores it once.
 */
export async function writeDeadLetter(js: JetStreamClient, letter: DeadLetter): Promise<PublishResult> {
  return publishMessage(js, {
    subject: deadLetterSubject(letter.queue, letter.name),
    data: JSON.stringify(letter),
    msgId: `dead:${letter.jobId}:${letter.attempts}`,
    expectedStream: DEAD_LETTERS_STREAM_NAME,
  });
}
