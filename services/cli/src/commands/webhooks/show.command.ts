import { systemClock } from '@berth/contract';
import { inboxCollections, readWebhookAttemptLog, type AttemptLogEntry } from '@berth/inbox';
import { UsageError, type Command } from '../../command';
import { formatJson, formatTable, truncate } from '../../output';
import { isoOrDash } from './format';

/** How each outcome reads in the table: the words the console uses. */
const OUTCOME_WORDS: Record<AttemptLogEntry['outcome'], string> = {
  succeeded: 'succeeded',
  failed: 'failed',
  superseded: 'superseded (lease ran out, another took over)',
  'lease-ran-out': 'lease ran out',
  running: 'running',
};

/** `berth webhooks show <provider> <eventId> [--json]` */
export const webhooksShowCommand: Command = {
  path: ['show'],
  usage: '<provider> <eventId> [--json]',
  description:
    'Show one inbox event (state, attempts, last error, without its payload) and every lease taken on it: each ' +
    'attempt or operation, who held it, when, and how it ended (succeeded, failed with its error, skipped, ' +
    'superseded, lease ran out, running), as the console shows it',
  options: { json: { type: 'boolean' } },
  async run({ values, positionals }, context) {
    if (positionals.length !== 2)
      throw new UsageError('give the provider and the provider event id, e.g. stripe evt_123');
    const [provider, eventId] = positionals;
    const read = await readWebhookAttemptLog({
      inbox: inboxCollections(await context.db()),
      provider,
      eventId,
      clock: systemClock,
    });
    if (!read) {
      context.stderr.write(`No webhook event ${provider}:${eventId} in the inbox.\n`);
      return 1;
    }
    const { row, attemptLog } = read;
    const state = row.processedAt ? 'processed' : row.abandonedAt ? 'set aside' : 'unprocessed';
    if (values.json) {
      const { payload: _payload, ...event } = row;
      context.stdout.write(formatJson({ event, state, attemptLog }));
      return 0;
    }
    context.stdout.write(
      [
        `${provider}:${eventId} (${row.type}): ${state}, ${row.attempts} attempt(s)`,
        `received ${row.receivedAt.toISOString()}, processed ${isoOrDash(row.processedAt)}, set aside ${isoOrDash(row.abandonedAt)}`,
        ...(row.lastError ? [`last error: ${truncate(row.lastError, 200)}`] : []),
        '',
      ].join('\n'),
    );
    context.stdout.write(
      formatTable(
        ['#', 'KIND', 'BY', 'STARTED AT', 'ENDED AT', 'OUTCOME', 'ERROR'],
        attemptLog.map((entry) => [
          entry.generation,
          entry.kind,
          entry.owner,
          isoOrDash(entry.startedAt),
          isoOrDash(entry.endedAt),
          OUTCOME_WORDS[entry.outcome],
          truncate(entry.error ?? '', 80),
        ]),
      ),
    );
    return 0;
  },
};
