import { newInboxRow } from '@berth/inbox/testing';
import type { InboxEventDocument, LeaseDocument } from '@berth/inbox';
import { attemptLogOf } from './attempt-log';

const at = (seconds: number): Date => new Date(Date.UTC(2030, 0, 1, 0, 0, seconds));

function row(fields: Partial<InboxEventDocument>): InboxEventDocument {
  return {
    ...newInboxRow({ provider: 'stripe', eventId: 'evt_log', type: 'invoice.paid', receivedAt: at(0), payload: '{}' }),
    firstAttempt: { owner: 'billing-1', at: at(1) },
    ...fields,
  };
}

function lease(generation: number, owner: string, from: number, to: number | null): LeaseDocument {
  return {
    _id: `stripe:evt_log#${generation}`,
    key: 'stripe:evt_log',
    generation,
    owner,
    acquiredAt: at(from),
    until: at(from + 60),
    releasedAt: to === null ? null : at(to),
  };
}

describe('attemptLogOf', () => {
  it('shows a first attempt that succeeded without a lease document, from the row', () => {
    expect(attemptLogOf(row({ attempts: 1, leaseGeneration: 1, processedAt: at(2) }), [null])).toEqual([
      { generation: 1, kind: 'attempt', owner: 'billing-1', startedAt: at(1), endedAt: at(2), error: null },
    ]);
  });

  it('ends a first attempt without a document at its recorded failure, and keeps the later leases', () => {
    const log = attemptLogOf(
      row({
        attempts: 2,
        leaseGeneration: 3,
        processedAt: at(9),
        attemptErrors: [{ attempt: 1, at: at(2), error: 'Error: Stripe 503' }],
      }),
      [lease(3, 'billing-2', 8, 9), lease(2, 'inbox-op:recovery:x', 5, 6), null],
    );
    expect(
      log.map(({ generation, kind, owner, endedAt, error }) => ({ generation, kind, owner, endedAt, error })),
    ).toEqual([
      { generation: 1, kind: 'attempt', owner: 'billing-1', endedAt: at(2), error: 'Error: Stripe 503' },
      { generation: 2, kind: 'operation', owner: 'inbox-op:recovery:x', endedAt: at(6), error: null },
      { generation: 3, kind: 'attempt', owner: 'billing-2', endedAt: at(9), error: null },
    ]);
  });

  it('uses the lease document of a first attempt that renewed, and shows one that crashed as never ended', () => {
    expect(attemptLogOf(row({ attempts: 1, leaseGeneration: 1 }), [lease(1, 'billing-1', 1, null)])).toHaveLength(1);
    expect(attemptLogOf(row({ attempts: 1, leaseGeneration: 1, leaseOwner: 'billing-1' }), [null])).toEqual([
      { generation: 1, kind: 'attempt', owner: 'billing-1', startedAt: at(1), endedAt: null, error: null },
    ]);
  });
});
