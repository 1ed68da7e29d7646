import { ManualClock } from '@berth/contract/testing';
import { Webhook } from 'standardwebhooks';
import type { ProviderConfig } from './config';
import { createProviderEndpoint } from './providers';

const NOW = new Date('2030-01-01T00:00:00Z');
const SECRET = `whsec_${Buffer.from('a signing key of 24 bytes').toString('base64')}`;

const batchProvider: ProviderConfig = {
  name: 'acme',
  scheme: 'standard-webhooks',
  secrets: [SECRET],
  eventTypes: { kind: 'only', types: ['order.paid'] },
  batch: { eventsField: 'events' },
  idField: 'id',
  typeField: 'type',
  storeOnly: false,
};

function signed(body: string): Record<string, string> {
  return {
    'webhook-id': 'msg_1',
    'webhook-timestamp': String(NOW.getTime() / 1000),
    'webhook-signature': new Webhook(SECRET).sign('msg_1', NOW, body),
  };
}

describe('provider endpoints', () => {
  it('refuses at boot a secret the provider library cannot use', () => {
    expect(() =>
      createProviderEndpoint({ ...batchProvider, secrets: ['whsec_!!not base64!!'] }, new ManualClock(NOW)),
    ).toThrow(/provider acme: .*secrets\[0\]/);
  });

  it('splits a verified batch into handled events, counting unhandled and unusable items', () => {
    const endpoint = createProviderEndpoint(batchProvider, new ManualClock(NOW));
    const events = [
      { id: 'e1', type: 'order.paid' },
      { id: 'e2', type: 'order.viewed' },
      { type: 'order.paid' },
      { id: 'e4', type: 'order.paid', n: 1 },
    ];
    const body = JSON.stringify({ events });
    const verified = endpoint.verify(Buffer.from(body), signed(body));
    if (!verified.ok) throw new Error(verified.message);

    const extracted = endpoint.extract(verified, Buffer.from(body));
    expect(extracted.handled.map((e) => [e.eventId, e.type, Buffer.from(e.data).toString()])).toEqual([
      ['e1', 'order.paid', JSON.stringify(events[0])],
      ['e4', 'order.paid', JSON.stringify(events[3])],
    ]);
    expect(extracted.unhandledCount).toBe(1);
    expect(extracted.unusable).toEqual(['events[2] has no string "id" or "type"']);
  });

  it('reports a batch whose events field is not an array as unusable', () => {
    const endpoint = createProviderEndpoint(batchProvider, new ManualClock(NOW));
    const body = JSON.stringify({ events: {} });
    const verified = endpoint.verify(Buffer.from(body), signed(body));
    if (!verified.ok) throw new Error(verified.message);
    expect(endpoint.extract(verified, Buffer.from(body))).toEqual({
      handled: [],
      unhandledCount: 0,
      unusable: ['"events" is not an array'],
    });
  });

  it('keeps the raw bytes of a single event, and uses the verifier clock', () => {
    const endpoint = createProviderEndpoint(
      { ...batchProvider, batch: undefined, eventTypes: { kind: 'all' } },
      new ManualClock(NOW),
    );
    const body = '{"type":"order.paid",  "spacing":"kept"}';
    const verified = endpoint.verify(Buffer.from(body), signed(body));
    if (!verified.ok) throw new Error(verified.message);
    const [event] = endpoint.extract(verified, Buffer.from(body)).handled;
    expect(event.eventId).toBe('msg_1');
    expect(Buffer.from(event.data).toString()).toBe(body);

    const later = createProviderEndpoint(
      { ...batchProvider, batch: undefined },
      new ManualClock(NOW.getTime() + 301_000),
    );
    expect(later.verify(Buffer.from(body), signed(body))).toMatchObject({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
  });

  it("takes a preset's id and type, filters by type, and stores a form body as the JSON of its verified fields", () => {
    const twilio: ProviderConfig = {
      name: 'sms',
      scheme: 'preset',
      preset: 'twilio',
      secrets: ['12345'],
      url: 'https://mycompany.com/myapp.php?foo=1&bar=2',
      eventTypes: { kind: 'only', types: ['request'] },
      idField: 'id',
      typeField: 'type',
      storeOnly: false,
    };
    const endpoint = createProviderEndpoint(twilio, new ManualClock(NOW));
    // Twilio's documented example: the URL, the POST parameters and the signature Twilio computes for them.
    const body = Buffer.from(
      'CallSid=CA1234567890ABCDE&Caller=%2B12349013030&Digits=1234&From=%2B12349013030&To=%2B18005551212',
    );
    const verified = endpoint.verify(body, { 'x-twilio-signature': '0/KCTR6DLpKmkAf8muzZqo1nDgQ=' });
    if (!verified.ok) throw new Error(verified.message);
    const { handled, unhandledCount } = endpoint.extract(verified, body);
    expect(unhandledCount).toBe(0);
    expect(
      handled.map((event) => [
        event.type,
        event.eventId.startsWith('sha256-'),
        JSON.parse(Buffer.from(event.data).toString()),
      ]),
    ).toEqual([
      [
        'request',
        true,
        {
          CallSid: 'CA1234567890ABCDE',
          Caller: '+12349013030',
          Digits: '1234',
          From: '+12349013030',
          To: '+18005551212',
        },
      ],
    ]);
    const statusOnly = createProviderEndpoint(
      { ...twilio, eventTypes: { kind: 'only', types: ['message.delivered'] } },
      new ManualClock(NOW),
    );
    expect(statusOnly.extract(verified, body)).toEqual({ handled: [], unhandledCount: 1, unusable: [] });
    expect(endpoint.verify(body, { 'x-twilio-signature': 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=' })).toMatchObject({
      ok: false,
      reason: 'bad_signature',
    });
  });
});
