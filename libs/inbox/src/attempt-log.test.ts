import { webhookAttemptLog } from './attempt-log';
import type { InboxEventDocument } from './types';
import { newInboxRow } from './testing';

const at = (seconds: number): Date => new Date(Date.UTC(2030, 0, 1, 0, 0, seconds));

function row(fields: Partial<InboxEventDocument>): InboxEventDocument {
  return {
    ...newInboxRow({ provider: 'stripe', eventId: 'evt_log', type: 'invoice.paid', receivedAt: at(0), payload: '{}' }),
    ...fields,
  };
}

const outcomes = (log: ReturnType<typeof webhookAttemptLog>) =>
  log.map(({ generation, outcome, owner, endedAt, error }) => ({ generation, outcome, owner, endedAt, error }));

describe('webhookAttemptLog', () => {
  it('reads a first attempt that succeeded as succeeded, with who ran it and when', () => {
    const log = webhookAttemptLog(
      row({
        attempts: 1,
        lastAttemptAt: at(1),
        processedAt: at(2),
        processedBy: { attempt: 1, owner: 'billing-1', startedAt: at(1) },
      }),
      at(10),
    );
    expect(log).toEqual([
      {
        generation: 1,
        kind: 'attempt',
        owner: 'billing-1',
        startedAt: at(1),
        endedAt: at(2),
        leaseUntil: null,
        outcome: 'succeeded',
        error: null,
      },
    ]);
  });

  it('reads the attempt that succeeded after a retry as succeeded, the failure before it as failed', () => {
    const log = webhookAttemptLog(
      row({
        attempts: 2,
        processedAt: at(20),
        processedBy: { attempt: 2, owner: 'billing-2' },
        attemptErrors: [{ attempt: 1, at: at(5), error: 'Error: Stripe 503', owner: 'billing-1', startedAt: at(1) }],
        lastError: 'Error: Stripe 503',
      }),
      at(30),
    );
    expect(outcomes(log)).toEqual([
      { generation: 1, outcome: 'failed', owner: 'billing-1', endedAt: at(5), error: 'Error: Stripe 503' },
      { generation: 2, outcome: 'succeeded', owner: 'billing-2', endedAt: at(20), error: null },
    ]);
  });

  it('tells a superseded attempt, one still running and one whose lease ran out apart', () => {
    const running = row({ attempts: 2, lastAttemptAt: at(40), leaseOwner: 'billing-2', leaseUntil: at(100) });
    expect(outcomes(webhookAttemptLog(running, at(50)))).toEqual([
      { generation: 1, outcome: 'superseded', owner: 'unknown', endedAt: null, error: null },
      { generation: 2, outcome: 'running', owner: 'billing-2', endedAt: null, error: null },
    ]);
    expect(webhookAttemptLog(running, at(50))[1].leaseUntil).toEqual(at(100));
    expect(outcomes(webhookAttemptLog(running, at(101))).map((attempt) => attempt.outcome)).toEqual([
      'superseded',
      'lease-ran-out',
    ]);
  });

  it('shows the ends of earlier rounds first: a success of an event sent again, a failure before a reopen', () => {
    const log = webhookAttemptLog(
      row({
        attempts: 1,
        reopenedAt: at(60),
        processedBefore: [{ at: at(10), attempt: 3, owner: 'billing-1' }],
        attemptErrors: [{ attempt: 1, at: at(5), error: 'Error: old round' }],
        processedAt: at(70),
        processedBy: { attempt: 1, owner: 'billing-2' },
      }),
      at(80),
    );
    expect(outcomes(log)).toEqual([
      { generation: 1, outcome: 'failed', owner: 'unknown', endedAt: at(5), error: 'Error: old round' },
      { generation: 3, outcome: 'succeeded', owner: 'billing-1', endedAt: at(10), error: null },
      { generation: 1, outcome: 'succeeded', owner: 'billing-2', endedAt: at(70), error: null },
    ]);
  });
});
