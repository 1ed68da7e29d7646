import { MAX_JSON_NESTING_DEPTH, nestsDeeperThan } from './json-depth';

describe('nestsDeeperThan', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it('measures arrays and objects, up to and past the limit', () => {
    expect(nestsDeeperThan(nested(MAX_JSON_NESTING_DEPTH), MAX_JSON_NESTING_DEPTH)).toBe(false);
    expect(nestsDeeperThan(nested(MAX_JSON_NESTING_DEPTH + 1), MAX_JSON_NESTING_DEPTH)).toBe(true);
    expect(nestsDeeperThan(`${'{"a":'.repeat(3)}1}}}`, 2)).toBe(true);
    expect(nestsDeeperThan(`${'{"a":'.repeat(2)}1}}`, 2)).toBe(false);
  });

  it('counts siblings once, and ignores brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan(JSON.stringify(Array.from({ length: 500 }, () => ({ a: [1] }))), 3)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ text: '[[[[[[[[[[' }), 2)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ text: 'a\\"[[[[[[' }), 2)).toBe(false);
  });
});
