import { WrittenVersions } from './written-versions';

describe('WrittenVersions', () => {
  const state = (version: number) => ({ document: { _id: 'doc', version }, sentAt: version * 1000 });

  it('recalls a write until it is maxAgeMs old, then forgets it', () => {
    const written = new WrittenVersions();
    written.remember('doc', state(1));
    expect(written.recall('doc', 500, 1_499)).toEqual(state(1));
    expect(written.recall('doc', 500, 1_500)).toBeUndefined();
    expect(written.size).toBe(0);
  });

  it('keeps the write sent last when two land out of order', () => {
    const written = new WrittenVersions();
    written.remember('doc', state(2));
    written.remember('doc', state(1));
    expect(written.recall('doc', 10_000, 2_000)?.document).toEqual({ _id: 'doc', version: 2 });
    written.forget('doc');
    expect(written.recall('doc', 10_000, 2_000)).toBeUndefined();
  });

  it('forgets the least recently written document past its bound, and nothing is kept at a bound of 0', () => {
    const written = new WrittenVersions(2);
    written.remember('a', state(1));
    written.remember('b', state(2));
    written.remember('a', state(3));
    written.remember('c', state(4));
    expect(written.size).toBe(2);
    expect(written.recall('b', 10_000, 4_000)).toBeUndefined();
    expect(written.recall('a', 10_000, 4_000)).toEqual(state(3));
    const none = new WrittenVersions(0);
    none.remember('a', state(1));
    expect(none.size).toBe(0);
  });
});
