import Stripe from 'stripe';
import { verifyStripeSignature } from './stripe';
import { ManualClock } from '@berth/contract/testing';

const NOW = new Date('2024-05-01T12:00:00Z');
const NOW_S = Math.floor(NOW.getTime() / 1000);
const SECRET = 'whsec_test_berth_primary';
const OTHER_SECRET = 'whsec_test_berth_other';
const EVENT = {
  id: 'evt_1PxYz',
  object: 'event',
  type: 'invoice.paid',
  data: { object: { id: 'in_1', amount_paid: 4200 } },
};
const BODY = JSON.stringify(EVENT);
const clock = new ManualClock(NOW);

/** Signs with Stripe's own test helper. */
function header(opts: { payload?: string; secret?: string; timestamp?: number } = {}): string {
  return Stripe.webhooks.generateTestHeaderString({
    payload: opts.payload ?? BODY,
    secret: opts.secret ?? SECRET,
    timestamp: opts.timestamp ?? NOW_S,
  });
}

describe('verifyStripeSignature', () => {
  it('accepts a valid delivery and returns the event id, signed time and payload', () => {
    expect(
      verifyStripeSignature({ rawBody: Buffer.from(BODY), signatureHeader: header(), secrets: [SECRET], clock }),
    ).toEqual({
      ok: true,
      eventId: 'evt_1PxYz',
      timestamp: NOW,
      secretIndex: 0,
      payload: EVENT,
    });
  });

  it('accepts a string body too', () => {
    expect(verifyStripeSignature({ rawBody: BODY, signatureHeader: header(), secrets: [SECRET], clock }).ok).toBe(true);
  });

  it('rejects a tampered body', () => {
    const tampered = BODY.replace('4200', '1');
    expect(
      verifyStripeSignature({ rawBody: tampered, signatureHeader: header(), secrets: [SECRET], clock }),
    ).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  it('rejects a pretty-printed re-serialization of the signed body', () => {
    const pretty = JSON.stringify(EVENT, null, 2);
    expect(
      verifyStripeSignature({ rawBody: pretty, signatureHeader: header(), secrets: [SECRET], clock }),
    ).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  it.each([
    ['6 minutes old', -360],
    ['6 minutes in the future', 360],
    ['1s past tolerance', -301],
    ['1s ahead of tolerance', 301],
  ])('rejects a timestamp %s', (_, offset) => {
    const signatureHeader = header({ timestamp: NOW_S + offset });
    expect(verifyStripeSignature({ rawBody: BODY, signatureHeader, secrets: [SECRET], clock })).toMatchObject({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
  });

  it('stripe alone accepts future timestamps (why the future check is ours)', () => {
    const future = header({ timestamp: NOW_S + 3600 });
    expect(Stripe.webhooks.signature?.verifyHeader(BODY, future, SECRET, 300, undefined, NOW.getTime())).toBe(true);
  });

  it.each([-300, 300])('accepts a timestamp exactly at the tolerance edge (%is)', (offset) => {
    const signatureHeader = header({ timestamp: NOW_S + offset });
    expect(verifyStripeSignature({ rawBody: BODY, signatureHeader, secrets: [SECRET], clock }).ok).toBe(true);
  });

  it('honours toleranceSeconds', () => {
    const signatureHeader = header({ timestamp: NOW_S - 360 });
    expect(
      verifyStripeSignature({ rawBody: BODY, signatureHeader, secrets: [SECRET], clock, toleranceSeconds: 600 }).ok,
    ).toBe(true);
  });

  it('honours the injected clock: a 2020 signature verifies when the clock says 2020', () => {
    const in2020 = new Date('2020-01-01T00:00:00Z');
    const signatureHeader = header({ timestamp: in2020.getTime() / 1000 });
    expect(
      verifyStripeSignature({ rawBody: BODY, signatureHeader, secrets: [SECRET], clock: new ManualClock(in2020) }),
    ).toMatchObject({ ok: true, timestamp: in2020 });
    expect(verifyStripeSignature({ rawBody: BODY, signatureHeader, secrets: [SECRET] })).toMatchObject({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
  });

  it.each([undefined, ''])('reports a missing header (%p)', (signatureHeader) => {
    expect(verifyStripeSignature({ rawBody: BODY, signatureHeader, secrets: [SECRET], clock })).toMatchObject({
      ok: false,
      reason: 'missing_header',
    });
  });

  it('rejects a wrong secret', () => {
    expect(
      verifyStripeSignature({ rawBody: BODY, signatureHeader: header(), secrets: [OTHER_SECRET], clock }),
    ).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  it('supports rotation: the second secret in the list verifies and is reported', () => {
    expect(
      verifyStripeSignature({ rawBody: BODY, signatureHeader: header(), secrets: [OTHER_SECRET, SECRET], clock }),
    ).toMatchObject({ ok: true, secretIndex: 1 });
  });

  it('rejects a header without a usable t= as malformed, and one without v1= as a bad signature', () => {
    const v1 = header()
      .split(',')
      .find((part) => part.startsWith('v1='));
    for (const bad of [`${v1}`, `t=${NOW_S}abc,${v1}`, `t=${NOW_S},t=${NOW_S},${v1}`]) {
      expect(verifyStripeSignature({ rawBody: BODY, signatureHeader: bad, secrets: [SECRET], clock })).toMatchObject({
        ok: false,
        reason: 'malformed',
      });
    }
    expect(
      verifyStripeSignature({ rawBody: BODY, signatureHeader: `t=${NOW_S}`, secrets: [SECRET], clock }),
    ).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  it('rejects an empty or valueless v1 (which makes the stripe library throw) as malformed, not with an exception', () => {
    for (const signatureHeader of [
      `t=${NOW_S},v1=`,
      `t=${NOW_S},v1`,
      `${header()},v1=`,
      `t=${NOW_S},v1=,v1=${'a'.repeat(64)}`,
    ]) {
      expect({
        signatureHeader,
        result: verifyStripeSignature({ rawBody: Buffer.from(BODY), signatureHeader, secrets: [SECRET], clock }),
      }).toEqual({ signatureHeader, result: { ok: false, reason: 'malformed', message: expect.any(String) } });
    }
  });

  it('rejects empty and non-UTF-8 bodies as malformed', () => {
    const raw = Buffer.concat([Buffer.from('{"id":"evt_'), Buffer.from([0xc3]), Buffer.from('"}')]);
    expect(
      verifyStripeSignature({
        rawBody: raw,
        signatureHeader: header({ payload: raw.toString() }),
        secrets: [SECRET],
        clock,
      }),
    ).toMatchObject({ ok: false, reason: 'malformed' });
    expect(
      verifyStripeSignature({ rawBody: '', signatureHeader: header({ payload: '' }), secrets: [SECRET], clock }),
    ).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('reports a correctly signed body that is not JSON or has no id as malformed', () => {
    for (const payload of ['not json', '{"object":"event"}']) {
      expect(
        verifyStripeSignature({
          rawBody: payload,
          signatureHeader: header({ payload }),
          secrets: [SECRET],
          clock,
        }),
      ).toMatchObject({ ok: false, reason: 'malformed' });
    }
  });

  it('throws for configuration errors, not request content', () => {
    const input = { rawBody: BODY, signatureHeader: header(), clock };
    expect(() => verifyStripeSignature({ ...input, secrets: [] })).toThrow(TypeError);
    expect(() => verifyStripeSignature({ ...input, secrets: [' '] })).toThrow(TypeError);
    expect(() => verifyStripeSignature({ ...input, secrets: [SECRET], toleranceSeconds: -1 })).toThrow(RangeError);
    expect(() => verifyStripeSignature({ ...input, secrets: [SECRET], clock: new ManualClock('nope') })).toThrow(
      TypeError,
    );
  });
});
