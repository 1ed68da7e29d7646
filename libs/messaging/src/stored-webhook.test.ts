import { decodeWebhookBatch, encodeWebhookBatch, MalformedWebhookBatchError } from './stored-webhook';

describe('webhook batch messages', () => {
  it('round-trips raw bodies byte for byte, newlines and unicode included', () => {
    const items = [
      { eventId: 'evt_1', receivedAt: '2026-11-30T07:00:00.000Z', payload: '{\n  "id": "evt_1", "name": "Zoë \\"Z\\""\n}', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
      { eventId: 'evt_2', receivedAt: '2026-11-30T07:00:00.001Z', payload: '{"id":"evt_2"}' },
    ];
    const decoded = decodeWebhookBatch(new TextDecoder().decode(encodeWebhookBatch(items)));
    expect(decoded).toEqual([items[0], { ...items[1], traceparent: undefined, tracestate: undefined }]);
  });

  it.each([
    ['not JSON', '{'],
    ['not an array', '{"eventId":"evt_1"}'],
    ['empty', '[]'],
    ['an item without payload', '[{"eventId":"evt_1","receivedAt":"2026-11-30T07:00:00Z"}]'],
    ['an item with an empty event id', '[{"eventId":"","receivedAt":"x","payload":"{}"}]'],
  ])('refuses a batch that is %s', (_case, text) => {
    expect(() => decodeWebhookBatch(text)).toThrow(MalformedWebhookBatchError);
  });
});
