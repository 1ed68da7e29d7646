import { PUBLIC_ADDRESSES, REFUSED_ADDRESSES } from './test-support/address-cases';
import { classifyAddress } from './classify-address';

describe('classifyAddress', () => {
  it.each(REFUSED_ADDRESSES)('%s is %s', (ip, addressClass) => {
    expect(classifyAddress(ip)).toBe(addressClass);
  });

  it.each(PUBLIC_ADDRESSES)('%s is public', (ip) => {
    expect(classifyAddress(ip)).toBe('public');
  });

  it('accepts URL brackets around IPv6', () => {
    expect(classifyAddress('[::1]')).toBe('loopback');
    expect(classifyAddress('[2606:4700::1111]')).toBe('public');
  });

  it.each([
    '',
    'localhost',
    'example.com',
    '127.1',
    '2130706433',
    '0x7f000001',
    '1.2.3.4.5',
    '::ffff:1.2.3',
    '1:2:3:4:5:6:7:8:9',
    '256.0.0.1',
  ])('%j is invalid, not an address', (text) => {
    expect(classifyAddress(text)).toBe('invalid');
  });
});
