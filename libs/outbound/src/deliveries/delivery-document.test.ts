import { toDeliveryView, type DeliveryLogEntry } from './delivery-document';

const created = new Date('2026-11-30T08:00:00Z');
const delivery = {
  _id: 'msg_1',
  eventId: 'evt_1',
  endpointId: 'ep_1',
  workspaceId: 'ws',
  eventType: 'a.b',
  createdAt: created,
};

function entry(
  round: number,
  attempt: number,
  kind: DeliveryLogEntry['kind'],
  status: DeliveryLogEntry['status'],
  at: number,
): DeliveryLogEntry {
  return {
    _id: `msg_1:r${round}:${kind === 'replay' ? 'replay' : `a${attempt}`}`,
    deliveryId: 'msg_1',
    endpointId: 'ep_1',
    round,
    attempt,
    kind,
    outcome: kind === 'attempt' ? (status === 'delivered' ? 'delivered' : 'retry') : null,
    status,
    statusCode: kind === 'attempt' ? (status === 'delivered' ? 200 : 500) : null,
    durationMs: kind === 'attempt' ? 10 : null,
    at: new Date(created.getTime() + at),
    responseBody: null,
    error: null,
    address: null,
    nextAttemptAt: null,
    createdAt: created,
  };
}

describe('toDeliveryView', () => {
  it('is pending with no log entry yet', () => {
    expect(toDeliveryView(delivery, [])).toMatchObject({
      status: 'pending',
      attemptCount: 0,
      replays: 0,
      nextAttemptAt: created.toISOString(),
    });
  });

  it('takes the status of the latest entry, a replay starting a new round', () => {
    const entries = [
      entry(1, 1, 'attempt', 'delivered', 5000),
      entry(0, 2, 'attempt', 'failed', 1000),
      entry(1, 0, 'replay', 'pending', 4000),
      entry(0, 1, 'attempt', 'pending', 0),
    ];
    const view = toDeliveryView(delivery, entries);
    expect(view).toMatchObject({
      status: 'delivered',
      attemptCount: 3,
      replays: 1,
      deliveredAt: new Date(created.getTime() + 5010).toISOString(),
    });
    expect(view.log.map((logged) => `${logged.round}:${logged.kind}:${logged.attempt}`)).toEqual([
      '0:attempt:1',
      '0:attempt:2',
      '1:replay:0',
      '1:attempt:1',
    ]);
    expect(toDeliveryView(delivery, entries.slice(1))).toMatchObject({ status: 'pending', replays: 1 });
  });
});
