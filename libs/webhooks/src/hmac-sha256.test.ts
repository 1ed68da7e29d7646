import { createHmac } from 'node:crypto';
import { signHmacSha256, verifyHmacSha256 } from './hmac-sha256';
import { ManualClock } from '@berth/contract/testing';

const NOW = new Date('2024-05-01T12:00:00Z');
const NOW_S = Math.floor(NOW.getTime() / 1000);
const SECRET = 'berth-shared-secret-1';
const OTHER_SECRET = 'berth-shared-secret-2';
const PAYLOAD = { id: 'evt_42', kind: 'order.shipped', note: 'naïve café' };
const BODY = JSON.stringify(PAYLOAD);
const clock = new ManualClock(NOW);

function headers(opts: { body?: string; secret?: string; timestamp?: number; encoding?: 'hex' | 'base64' } = {}) {
  const timestamp = opts.timestamp ?? NOW_S;
  const signature = signHmacSha256({
    secret: opts.secret ?? SECRET,
    timestamp,
    rawBody: opts.body ?? BODY,
    encoding: opts.encoding,
  });
  return { 'x-signature': signature, 'x-timestamp': String(timestamp) };
}

describe('signHmacSha256', () => {
  it('is HMAC-SHA256 of `${timestamp}.${rawBody}` (checked against node:crypto directly)', () => {
    const expected = createHmac('sha256', SECRET).update(`${NOW_S}.${BODY}`).digest();
    expect(signHmacSha256({ secret: SECRET, timestamp: NOW_S, rawBody: BODY })).toBe(expected.toString('hex'));
    expect(signHmacSha256({ secret: SECRET, timestamp: NOW_S, rawBody: Buffer.from(BODY), encoding: 'base64' })).toBe(
      expected.toString('base64'),
    );
  });

  it('rejects non-integer timestamps', () => {
    expect(() => signHmacSha256({ secret: SECRET, timestamp: 1.5, rawBody: BODY })).toThrow(RangeError);
  });
});

describe('verifyHmacSha256', () => {
  it('accepts a valid hex signature and returns id, signed time, secret index and payload', () => {
    expect(verifyHmacSha256({ rawBody: Buffer.from(BODY), headers: headers(), secrets: [SECRET], clock })).toEqual({
      ok: true,
      eventId: 'evt_42',
      timestamp: NOW,
      secretIndex: 0,
      payload: PAYLOAD,
    });
  });

  it('accepts base64, base64url, unpadded and sha256=-prefixed signatures', () => {
    const digest = Buffer.from(headers()['x-signature'], 'hex');
    const forms = [
      digest.toString('base64'),
      digest.toString('base64url'),
      digest.toString('base64').replace(/=$/, ''),
      `sha256=${digest.toString('hex')}`,
      `sha256=${digest.toString('base64')}`,
    ];
    for (const signature of forms) {
      expect(
        verifyHmacSha256({
          rawBody: BODY,
          headers: { ...headers(), 'x-signature': signature },
          secrets: [SECRET],
          clock,
        }).ok,
      ).toBe(true);
    }
  });

  it('uses configurable header names', () => {
    const { 'x-signature': sig, 'x-timestamp': ts } = headers();
    const result = verifyHmacSha256({
      rawBody: BODY,
      headers: { 'X-Hub-Signature-256': `sha256=${sig}`, 'X-Hub-Time': ts },
      secrets: [SECRET],
      clock,
      signatureHeaderName: 'x-hub-signature-256',
      timestampHeaderName: 'x-hub-time',
    });
    expect(result.ok).toBe(true);
  });

  it('rejects a tampered body', () => {
    expect(
      verifyHmacSha256({ rawBody: BODY.replace('42', '43'), headers: headers(), secrets: [SECRET], clock }),
    ).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  it('rejects a pretty-printed re-serialization of the signed body', () => {
    expect(
      verifyHmacSha256({
        rawBody: JSON.stringify(PAYLOAD, null, 2),
        headers: headers(),
        secrets: [SECRET],
        clock,
      }),
    ).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  it('rejects a timestamp header changed after signing', () => {
    const moved = { ...headers(), 'x-timestamp': String(NOW_S + 1) };
    expect(verifyHmacSha256({ rawBody: BODY, headers: moved, secrets: [SECRET], clock })).toMatchObject({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it.each([
    ['6 minutes old', -360],
    ['6 minutes in the future', 360],
  ])('rejects a timestamp %s', (_, offset) => {
    expect(
      verifyHmacSha256({
        rawBody: BODY,
        headers: headers({ timestamp: NOW_S + offset }),
        secrets: [SECRET],
        clock,
      }),
    ).toMatchObject({ ok: false, reason: 'timestamp_out_of_tolerance' });
  });

  it('honours the injected clock: a 2020 signature verifies when the clock says 2020', () => {
    const in2020 = new Date('2020-01-01T00:00:00Z');
    const signed = headers({ timestamp: in2020.getTime() / 1000 });
    expect(
      verifyHmacSha256({ rawBody: BODY, headers: signed, secrets: [SECRET], clock: new ManualClock(in2020) }),
    ).toMatchObject({
      ok: true,
      timestamp: in2020,
    });
    expect(verifyHmacSha256({ rawBody: BODY, headers: signed, secrets: [SECRET] })).toMatchObject({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
  });

  it.each(['x-signature', 'x-timestamp'])('reports a missing %s header', (name) => {
    const partial: Record<string, string> = headers();
    delete partial[name];
    expect(verifyHmacSha256({ rawBody: BODY, headers: partial, secrets: [SECRET], clock })).toMatchObject({
      ok: false,
      reason: 'missing_header',
    });
  });

  it('rejects a wrong secret', () => {
    expect(verifyHmacSha256({ rawBody: BODY, headers: headers(), secrets: [OTHER_SECRET], clock })).toMatchObject({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('supports rotation: the second secret in the list verifies and is reported', () => {
    expect(
      verifyHmacSha256({ rawBody: BODY, headers: headers(), secrets: [OTHER_SECRET, SECRET], clock }),
    ).toMatchObject({ ok: true, secretIndex: 1 });
  });

  it('rejects signatures that are not a SHA-256 digest in hex or base64 as malformed', () => {
    const sig = headers()['x-signature'];
    for (const bad of ['zz', sig.slice(0, 62), `${sig}00`, `sha1=${sig}`]) {
      expect(
        verifyHmacSha256({
          rawBody: BODY,
          headers: { ...headers(), 'x-signature': bad },
          secrets: [SECRET],
          clock,
        }),
      ).toMatchObject({ ok: false, reason: 'malformed' });
    }
  });

  it('takes the event id from eventIdFrom, and fails as malformed when there is none', () => {
    const body = JSON.stringify({ delivery: { uuid: 'd-1' } });
    const input = { rawBody: body, headers: headers({ body }), secrets: [SECRET], clock };
    expect(
      verifyHmacSha256({ ...input, eventIdFrom: (p) => (p as { delivery: { uuid: string } }).delivery.uuid }),
    ).toMatchObject({ ok: true, eventId: 'd-1' });
    expect(verifyHmacSha256(input)).toMatchObject({ ok: false, reason: 'malformed' });
    expect(
      verifyHmacSha256({
        ...input,
        eventIdFrom: () => {
          throw new Error('shape');
        },
      }),
    ).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('reports a correctly signed non-JSON body as malformed', () => {
    expect(
      verifyHmacSha256({ rawBody: 'a=1&b=2', headers: headers({ body: 'a=1&b=2' }), secrets: [SECRET], clock }),
    ).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('throws for configuration errors, not request content', () => {
    expect(() => verifyHmacSha256({ rawBody: BODY, headers: headers(), secrets: [], clock })).toThrow(TypeError);
    expect(() =>
      verifyHmacSha256({
        rawBody: BODY,
        headers: headers(),
        secrets: [SECRET],
        clock,
        toleranceSeconds: Infinity,
      }),
    ).toThrow(RangeError);
  });
});
