import { decodeUtf8Strict, readSingleHeader } from './input';

describe('readSingleHeader', () => {
  it('finds a header case-insensitively and unwraps a one-element array', () => {
    expect(readSingleHeader({ 'X-Signature': 'abc' }, 'x-signature')).toEqual({ kind: 'ok', value: 'abc' });
    expect(readSingleHeader({ 'x-signature': ['abc'] }, 'X-Signature')).toEqual({ kind: 'ok', value: 'abc' });
  });

  it('treats absent, undefined and empty as missing', () => {
    expect(readSingleHeader({}, 'a')).toEqual({ kind: 'missing' });
    expect(readSingleHeader({ a: undefined }, 'a')).toEqual({ kind: 'missing' });
    expect(readSingleHeader({ a: '' }, 'a')).toEqual({ kind: 'missing' });
    expect(readSingleHeader({ a: [] }, 'a')).toEqual({ kind: 'missing' });
  });

  it('treats repeated headers (array or differently-cased keys) as duplicates', () => {
    expect(readSingleHeader({ a: ['1', '2'] }, 'a')).toEqual({ kind: 'duplicate' });
    expect(readSingleHeader({ a: '1', A: '2' }, 'a')).toEqual({ kind: 'duplicate' });
  });
});

describe('decodeUtf8Strict', () => {
  it('keeps a BOM and rejects invalid UTF-8 and lone surrogates', () => {
    expect(decodeUtf8Strict(Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]))).toBe('\uFEFF{}');
    expect(decodeUtf8Strict(Buffer.from([0x7b, 0xff, 0x7d]))).toBeUndefined();
    expect(decodeUtf8Strict('{"a":"\uD800"}')).toBeUndefined();
    expect(decodeUtf8Strict('{"a":"😀"}')).toBe('{"a":"😀"}');
  });
});
