import { createHeaders } from './trace-headers';
import {
  decodeWebhookBatch,
  encodeWebhookBatch,
  MalformedWebhookBatchError,
  readProviderHeaders,
  setProviderHeaders,
} from './stored-webhook';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (data: Uint8Array): string => Buffer.from(data).toString('utf8');

describe('webhook batch messages', () => {
  it('round-trips raw bodies byte for byte, newlines, quotes and unicode included', () => {
    const items = [
      {
        eventId: 'evt_1',
        receivedAt: '2026-11-30T07:00:00.000Z',
        payload: bytes('{\n  "id": "evt_1", "name": "Zoë \\"Z\\""\n}\n'),
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      },
      { eventId: 'evt_2', receivedAt: '2026-11-30T07:00:00.001Z', payload: bytes('') },
      { eventId: 'evt_3', receivedAt: '2026-11-30T07:00:00.002Z', payload: bytes('{"id":"evt_3"}') },
    ];
    const decoded = decodeWebhookBatch(encodeWebhookBatch(items));
    expect(decoded.map((item) => ({ ...item, payload: text(item.payload) }))).toEqual(
      items.map((item) => ({
        tracestate: undefined,
        traceparent: undefined,
        headers: undefined,
        ...item,
        payload: text(item.payload),
      })),
    );
  });

  it("keeps each item's provider headers, names in lower case, and drops values that are not strings", () => {
    const data = bytes(
      '{"eventId":"evt_1","receivedAt":"r","bytes":2,"headers":{"X-GitHub-Event":"push","n":3}}\n{}\n',
    );
    expect(decodeWebhookBatch(data)[0].headers).toEqual({ 'x-github-event': 'push' });
    const round = decodeWebhookBatch(
      encodeWebhookBatch([
        { eventId: 'evt_2', receivedAt: 'r', payload: bytes('{}'), headers: { 'webhook-id': 'msg_2' } },
      ]),
    );
    expect(round[0].headers).toEqual({ 'webhook-id': 'msg_2' });
  });

  it("carries a single event's provider headers as Berth-Header-* message headers, read back in lower case", () => {
    const headers = createHeaders();
    headers.set('Berth-Provider', 'gh');
    setProviderHeaders(headers, { 'x-github-event': 'pull_request', 'x-hub-signature-256': 'sha256=ab' });
    expect(headers.get('Berth-Header-x-github-event')).toBe('pull_request');
    expect(readProviderHeaders(headers)).toEqual({
      'x-github-event': 'pull_request',
      'x-hub-signature-256': 'sha256=ab',
    });
    expect(readProviderHeaders(undefined)).toEqual({});
  });

  it('is readable as text: one JSON line per event, then its body', () => {
    const data = text(encodeWebhookBatch([{ eventId: 'evt_1', receivedAt: 'r', payload: bytes('{"id":"evt_1"}') }]));
    expect(data).toBe('{"eventId":"evt_1","receivedAt":"r","bytes":14}\n{"id":"evt_1"}\n');
  });

  it.each([
    ['empty', ''],
    ['without a header line', '{"eventId":"evt_1"'],
    ['with a header that is not JSON', '{nope\n{}\n'],
    ['with an item lacking its receive time', '{"eventId":"evt_1","bytes":2}\n{}\n'],
    ['with an empty event id', '{"eventId":"","receivedAt":"r","bytes":2}\n{}\n'],
    ['cut short', '{"eventId":"evt_1","receivedAt":"r","bytes":20}\n{}\n'],
    ['with a body longer than announced', '{"eventId":"evt_1","receivedAt":"r","bytes":1}\n{}\n'],
  ])('refuses a batch %s', (_case, data) => {
    expect(() => decodeWebhookBatch(bytes(data))).toThrow(MalformedWebhookBatchError);
  });
});
