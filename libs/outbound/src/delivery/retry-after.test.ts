import { parseRetryAfter } from './retry-after';

describe('parseRetryAfter', () => {
  const now = new Date('2030-01-01T00:00:00Z');

  it.each([
    ['7', 7_000],
    [' 120 ', 120_000],
    ['0', 0],
    ['Tue, 01 Jan 2030 00:00:30 GMT', 30_000],
    ['Mon, 31 Dec 2029 23:59:00 GMT', 0],
  ])('reads %j as %d ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });

  it.each([undefined, '', '-5', '1.5', 'soon', '2030-01-01'])('ignores %j', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});
