import { assertEventType, assertWorkspaceId, deliveryIdFor, eventIdFor } from './names';

describe('outbound names', () => {
  it('derives one event id per (workspace, idempotency key), and one webhook-id per (event, endpoint)', () => {
    expect(eventIdFor('ws_1', 'k')).toBe(eventIdFor('ws_1', 'k'));
    expect(eventIdFor('ws_1', 'k')).not.toBe(eventIdFor('ws_2', 'k'));
    expect(eventIdFor('ws_1', 'k')).toMatch(/^evt_[0-9a-f]{32}$/);
    const eventId = eventIdFor('ws_1', 'k');
    expect(deliveryIdFor(eventId, 'ep_a')).not.toBe(deliveryIdFor(eventId, 'ep_b'));
    expect(deliveryIdFor(eventId, 'ep_a')).toMatch(/^msg_[0-9a-f]{32}_a$/);
  });

  it('refuses workspace ids and event types unfit for a subject', () => {
    expect(() => assertWorkspaceId('ws.1')).toThrow(TypeError);
    expect(() => assertWorkspaceId('ws *')).toThrow(TypeError);
    expect(() => assertWorkspaceId('ws_1-A')).not.toThrow();
    expect(() => assertEventType('invoice.paid')).not.toThrow();
    expect(() => assertEventType('invoice paid')).toThrow(TypeError);
  });
});
