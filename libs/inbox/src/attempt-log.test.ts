import { webhookAttemptLog } from './attempt-log';
import type { LeaseDocument } from './leases/lease-types';
import { newInboxRow } from './testing';
import type { InboxEventDocument } from './types';

const at = (seconds: number): Date => new Date(Date.UTC(2030, 0, 1, 0, 0, seconds));

function row(fields: Partial<InboxEventDocument>): InboxEventDocument {
  return {
    ...newInboxRow({ provider: 'stripe', eventId: 'evt_log', type: 'invoice.paid', receivedAt: at(0), payload: '{}' }),
    firstAttempt: { owner: 'billing-1', at: at(1) },
    ...fields,
  };
}

function lease(generation: number, owner: string, from: number, to: number | null, until = from + 60): LeaseDocument {
  return {
    _id: `stripe:evt_log#${generation}`,
    key: 'stripe:evt_log',
    generation,
    owner,
    acquiredAt: at(from),
    until: at(until),
    releasedAt: to === null ? null : at(to),
  };
}

const outcomes = (log: ReturnType<typeof webhookAttemptLog>) =>
  log.map(({ generation, kind, outcome, endedAt, error }) => ({ generation, kind, outcome, endedAt, error }));

describe('webhookAttemptLog', () => {
  it('reads a first attempt that succeeded without a lease document as succeeded, from the row', () => {
    expect(webhookAttemptLog(row({ attempts: 1, leaseGeneration: 1, processedAt: at(2) }), [null], at(500))).toEqual([
      {
        generation: 1,
        kind: 'attempt',
        owner: 'billing-1',
        startedAt: at(1),
        endedAt: at(2),
        leaseUntil: at(1),
        outcome: 'succeeded',
        error: null,
      },
    ]);
  });

  it('reads the attempt that succeeded after a retry as succeeded, not as a lease that ran out', () => {
    const log = webhookAttemptLog(
      row({
        attempts: 2,
        leaseGeneration: 3,
        processedAt: at(9),
        attemptErrors: [{ attempt: 1, at: at(2), error: 'Error: Stripe 503' }],
      }),
      // markProcessed leaves the succeeding lease unreleased: it is the success inside its span that tells.
      [lease(3, 'billing-2', 8, null), lease(2, 'inbox-op:recovery:x', 5, 6), null],
      at(500),
    );
    expect(outcomes(log)).toEqual([
      { generation: 1, kind: 'attempt', outcome: 'failed', endedAt: at(2), error: 'Error: Stripe 503' },
      { generation: 2, kind: 'operation', outcome: 'done', endedAt: at(6), error: null },
      { generation: 3, kind: 'attempt', outcome: 'succeeded', endedAt: at(9), error: null },
    ]);
  });

  it('tells a superseded attempt, one whose lease ran out, one still running and a skipped duplicate apart', () => {
    const unprocessed = row({ attempts: 2, leaseGeneration: 2 });
    // Attempt 1 never let go; attempt 2 took over after its lease ran out, and crashed too.
    expect(
      outcomes(
        webhookAttemptLog(unprocessed, [lease(1, 'billing-1', 1, null, 31), lease(2, 'billing-2', 40, null)], at(500)),
      ),
    ).toEqual([
      { generation: 1, kind: 'attempt', outcome: 'superseded', endedAt: at(40), error: null },
      { generation: 2, kind: 'attempt', outcome: 'lease-ran-out', endedAt: null, error: null },
    ]);
    expect(outcomes(webhookAttemptLog(unprocessed, [lease(2, 'billing-2', 40, null)], at(50))).at(-1)).toMatchObject({
      outcome: 'running',
    });
    // A duplicate delivery claimed the processed event, found it processed and let go at once.
    const processed = row({ attempts: 2, leaseGeneration: 2, processedAt: at(3) });
    expect(
      outcomes(webhookAttemptLog(processed, [lease(1, 'billing-1', 1, null), lease(2, 'billing-2', 70, 70)], at(500))),
    ).toEqual([
      { generation: 1, kind: 'attempt', outcome: 'succeeded', endedAt: at(3), error: null },
      { generation: 2, kind: 'attempt', outcome: 'skipped', endedAt: at(70), error: null },
    ]);
  });

  it('keeps an earlier success of an event sent again (processedBefore) and gives an old row its last error', () => {
    const resent = { ...row({ attempts: 1, leaseGeneration: 3, processedAt: null }), processedBefore: [at(3)] };
    expect(
      outcomes(
        webhookAttemptLog(
          resent,
          [
            lease(1, 'billing-1', 1, null),
            lease(2, 'inbox-op:resend-processed:alice', 100, 101),
            lease(3, 'b', 102, null),
          ],
          at(110),
        ),
      ).map(({ outcome }) => outcome),
    ).toEqual(['succeeded', 'done', 'running']);
    const old = row({ attempts: 1, leaseGeneration: 1, lastError: 'Error: old', firstAttempt: undefined });
    expect(outcomes(webhookAttemptLog(old, [lease(1, 'billing-1', 1, 2)], at(500)))).toEqual([
      { generation: 1, kind: 'attempt', outcome: 'failed', endedAt: at(2), error: 'Error: old' },
    ]);
  });
});
