import { ManualClock } from '@berth/contract/testing';
import { createOutboxEntry } from './outbox-entry';
import { withOutboxDocument, withOutboxUpdate } from './with-outbox';

const at = new Date('2030-01-01T00:00:00Z');
const entry = createOutboxEntry(
  { workspaceId: 'ws_1', eventType: 'invoice.paid', payload: { invoiceId: 'in_1' } },
  { clock: new ManualClock(at), newId: () => 'e1' },
);

describe('createOutboxEntry', () => {
  it('freezes the payload as JSON text under a fresh UUID', () => {
    expect(entry).toEqual({
      id: 'e1',
      workspaceId: 'ws_1',
      eventType: 'invoice.paid',
      payload: '{"invoiceId":"in_1"}',
      createdAt: at,
    });
    const ids = new Set(
      Array.from({ length: 20 }, () => createOutboxEntry({ workspaceId: 'ws_1', eventType: 't', payload: null }).id),
    );
    expect(ids.size).toBe(20);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it.each([
    ['a payload that is not JSON', { workspaceId: 'ws_1', eventType: 't', payload: undefined }],
    ['a BigInt payload', { workspaceId: 'ws_1', eventType: 't', payload: { n: 1n } }],
    ['a workspace id that is not a subject token', { workspaceId: 'ws.1', eventType: 't', payload: {} }],
    ['an event type with spaces', { workspaceId: 'ws_1', eventType: 'invoice paid', payload: {} }],
  ])('refuses %s', (_case, event) => {
    expect(() => createOutboxEntry(event)).toThrow(TypeError);
  });
});

describe('withOutboxUpdate', () => {
  it("adds the entries with $push $each beside the caller's operators", () => {
    expect(withOutboxUpdate({ $set: { status: 'paid' }, $inc: { version: 1 } }, [entry])).toEqual({
      $set: { status: 'paid' },
      $inc: { version: 1 },
      $push: { _outbox: { $each: [entry] } },
    });
    expect(withOutboxUpdate<{ history: string[] }>({ $push: { history: 'paid' } }, [entry])).toEqual({
      $push: { history: 'paid', _outbox: { $each: [entry] } },
    });
  });

  it.each([
    ['a replacement', { status: 'paid' }],
    ['a pipeline', [{ $set: { status: 'paid' } }]],
    ['an update of the outbox itself', { $set: { _outbox: [] } }],
    ['an update inside the outbox', { $unset: { '_outbox.0': '' } }],
  ])('refuses %s', (_case, update) => {
    expect(() => withOutboxUpdate(update as never, [entry])).toThrow(RangeError);
  });
});

describe('withOutboxDocument', () => {
  it('adds the outbox field to a new document, refusing one that has it', () => {
    expect(withOutboxDocument({ _id: 'in_1', total: 5 }, [entry])).toEqual({ _id: 'in_1', total: 5, _outbox: [entry] });
    expect(() => withOutboxDocument({ _id: 'in_1', _outbox: [] }, [entry])).toThrow(RangeError);
  });
});
