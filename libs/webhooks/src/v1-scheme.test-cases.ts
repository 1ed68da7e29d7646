/**
 * Shared test cases for the Svix and Standard Webhooks verifiers (same v1 scheme, different
 * header names and libraries). Not a test file itself; imported by svix.test.ts and
 * standard-webhooks.test.ts, which sign with the provider's own library.
 */
import type { VerificationResult } from './result';
import type { V1SchemeVerifyInput } from './v1-scheme';
import { ManualClock } from '@berth/contract/testing';

/** What a provider-specific test file supplies. */
export interface V1SchemeCaseConfig {
  readonly headerNames: { readonly id: string; readonly timestamp: string; readonly signature: string };
  /** Signs with the provider's own library: returns the `v1,<base64>` header value. */
  readonly sign: (secret: string, msgId: string, signedAt: Date, body: string | Buffer) => string;
  readonly verify: (input: V1SchemeVerifyInput) => VerificationResult;
}

export const NOW = new Date('2024-05-01T12:00:00Z');
export const SECRET = `whsec_${Buffer.from('berth-test-secret-number-1').toString('base64')}`;
export const OTHER_SECRET = `whsec_${Buffer.from('berth-test-secret-number-2').toString('base64')}`;
export const BODY = JSON.stringify({ type: 'user.created', data: { id: 'user_1', name: 'Zoë' } });

/** Registers the common cases. */
export function describeV1SchemeCases(config: V1SchemeCaseConfig): void {
  const { headerNames: names, sign, verify } = config;
  const clock = new ManualClock(NOW);
  const at = (offsetSeconds: number) => new Date(NOW.getTime() + offsetSeconds * 1000);

  function deliver(
    opts: {
      body?: string | Buffer;
      signedBody?: string | Buffer;
      signedAt?: Date;
      secret?: string;
      msgId?: string;
    } = {},
  ): Record<string, string> {
    const signedAt = opts.signedAt ?? NOW;
    const msgId = opts.msgId ?? 'msg_2abc';
    return {
      [names.id]: msgId,
      [names.timestamp]: String(Math.floor(signedAt.getTime() / 1000)),
      [names.signature]: sign(opts.secret ?? SECRET, msgId, signedAt, opts.signedBody ?? opts.body ?? BODY),
    };
  }

  it('accepts a valid delivery and returns id, signed time, secret index and parsed payload', () => {
    expect(verify({ rawBody: Buffer.from(BODY), headers: deliver(), secrets: [SECRET], clock })).toEqual({
      ok: true,
      eventId: 'msg_2abc',
      timestamp: NOW,
      secretIndex: 0,
      payload: JSON.parse(BODY),
    });
  });

  it('accepts a string body too', () => {
    expect(verify({ rawBody: BODY, headers: deliver(), secrets: [SECRET], clock }).ok).toBe(true);
  });

  it('rejects a tampered body', () => {
    const result = verify({
      rawBody: BODY.replace('user_1', 'user_2'),
      headers: deliver(),
      secrets: [SECRET],
      clock,
    });
    expect(result).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  it('rejects a pretty-printed re-serialization of the signed body', () => {
    const pretty = JSON.stringify(JSON.parse(BODY), null, 2);
    expect(verify({ rawBody: pretty, headers: deliver(), secrets: [SECRET], clock })).toMatchObject({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('rejects a swapped message id (the id is signed)', () => {
    const headers = { ...deliver(), [names.id]: 'msg_other' };
    expect(verify({ rawBody: BODY, headers, secrets: [SECRET], clock })).toMatchObject({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it.each([
    ['6 minutes old', -360],
    ['6 minutes in the future', 360],
    ['1s past tolerance', -301],
  ])('rejects a timestamp %s', (_, offset) => {
    const result = verify({ rawBody: BODY, headers: deliver({ signedAt: at(offset) }), secrets: [SECRET], clock });
    expect(result).toMatchObject({ ok: false, reason: 'timestamp_out_of_tolerance' });
  });

  it.each([-300, 300])('accepts a timestamp exactly at the tolerance edge (%is)', (offset) => {
    expect(verify({ rawBody: BODY, headers: deliver({ signedAt: at(offset) }), secrets: [SECRET], clock }).ok).toBe(
      true,
    );
  });

  it('honours toleranceSeconds', () => {
    const headers = deliver({ signedAt: at(-360) });
    expect(verify({ rawBody: BODY, headers, secrets: [SECRET], clock, toleranceSeconds: 600 }).ok).toBe(true);
  });

  it('honours the injected clock: a 2020 signature verifies when the clock says 2020', () => {
    const in2020 = new Date('2020-01-01T00:00:00Z');
    const headers = deliver({ signedAt: in2020 });
    expect(verify({ rawBody: BODY, headers, secrets: [SECRET], clock: new ManualClock(in2020) })).toMatchObject({
      ok: true,
      timestamp: in2020,
    });
    expect(verify({ rawBody: BODY, headers, secrets: [SECRET] })).toMatchObject({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
  });

  it.each([names.id, names.timestamp, names.signature])('reports a missing %s header', (name) => {
    const headers: Record<string, string | undefined> = { ...deliver() };
    delete headers[name];
    expect(verify({ rawBody: BODY, headers, secrets: [SECRET], clock })).toMatchObject({
      ok: false,
      reason: 'missing_header',
    });
    expect(verify({ rawBody: BODY, headers: { ...headers, [name]: '' }, secrets: [SECRET], clock })).toMatchObject({
      ok: false,
      reason: 'missing_header',
    });
  });

  it('rejects a wrong secret', () => {
    expect(verify({ rawBody: BODY, headers: deliver(), secrets: [OTHER_SECRET], clock })).toMatchObject({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('supports rotation: the second secret in the list verifies and is reported', () => {
    expect(verify({ rawBody: BODY, headers: deliver(), secrets: [OTHER_SECRET, SECRET], clock })).toMatchObject({
      ok: true,
      secretIndex: 1,
    });
  });

  it('accepts when any of several space-separated signatures matches', () => {
    const headers = deliver();
    const both = `${deliver({ secret: OTHER_SECRET })[names.signature]} ${headers[names.signature]}`;
    expect(
      verify({ rawBody: BODY, headers: { ...headers, [names.signature]: both }, secrets: [SECRET], clock }).ok,
    ).toBe(true);
  });

  it('reads header names case-insensitively', () => {
    const headers = Object.fromEntries(Object.entries(deliver()).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verify({ rawBody: BODY, headers, secrets: [SECRET], clock }).ok).toBe(true);
  });

  it('rejects duplicated headers and non-numeric timestamps as malformed', () => {
    const headers = deliver();
    const dup = { ...headers, [names.signature]: [headers[names.signature], 'v1,xyz'] };
    expect(verify({ rawBody: BODY, headers: dup, secrets: [SECRET], clock })).toMatchObject({
      ok: false,
      reason: 'malformed',
    });
    const ts = String(Math.floor(NOW.getTime() / 1000));
    expect(
      verify({ rawBody: BODY, headers: { ...headers, [names.timestamp]: `${ts}abc` }, secrets: [SECRET], clock }),
    ).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('rejects a body that is not valid UTF-8 before verifying', () => {
    const raw = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff]), Buffer.from('"}')]);
    const headers = deliver({ signedBody: raw });
    expect(verify({ rawBody: raw, headers, secrets: [SECRET], clock })).toMatchObject({
      ok: false,
      reason: 'malformed',
    });
  });

  it('reports a correctly signed non-JSON body as malformed', () => {
    expect(
      verify({ rawBody: 'not json', headers: deliver({ body: 'not json' }), secrets: [SECRET], clock }),
    ).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('throws for configuration errors, not request content', () => {
    expect(() => verify({ rawBody: BODY, headers: deliver(), secrets: [], clock })).toThrow(TypeError);
    expect(() => verify({ rawBody: BODY, headers: deliver(), secrets: ['whsec_!!!not base64!!!'], clock })).toThrow(
      /secrets\[0\]/,
    );
    expect(() => verify({ rawBody: BODY, headers: deliver(), secrets: [SECRET], clock: new ManualClock(NaN) })).toThrow(
      TypeError,
    );
    expect(() => verify({ rawBody: BODY, headers: deliver(), secrets: [SECRET], clock, toleranceSeconds: 0 })).toThrow(
      RangeError,
    );
  });
}
