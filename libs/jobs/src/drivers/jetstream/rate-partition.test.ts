import {
  ratePartitionCodec,
  reserveStarts,
  startsInWindow,
  takeStarts,
  type KeyWindow,
  type StartGroup,
} from './rate-partition';

const empty = (perMs = 1000): KeyWindow => ({ groups: [], perMs, nextReserved: 0 });

/** A server time to count from (a stamp of 0 means "this write", so no real write is at 0). */
const T = 1_000_000;

/** Stamps the groups a change wrote with `0` ("this write") as the write's time, as decoding the entry does. */
function written(window: KeyWindow, at: number): void {
  window.groups = window.groups.map(([stamp, count, holdMs]): StartGroup => [stamp || at, count, holdMs]);
}

/** A seeded generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('takeStarts', () => {
  it('grants blocks while the key stays half full, then one start at a time, then refuses', () => {
    const window = empty();
    const limit = { limit: 10, perMs: 1000 };
    expect(takeStarts(window, limit, { starts: 4, holdMs: 500 }, T)).toEqual({ allowed: true, starts: 4, holdMs: 500 });
    // One start of room left below half: a single start, taken now (no hold).
    expect(takeStarts(window, limit, { starts: 4, holdMs: 500 }, T)).toEqual({ allowed: true, starts: 1, holdMs: 0 });
    for (let n = 0; n < 5; n++)
      expect(takeStarts(window, limit, { starts: 4, holdMs: 500 }, T)).toEqual({ allowed: true, starts: 1, holdMs: 0 });
    written(window, T);
    const refused = takeStarts(window, limit, { starts: 4, holdMs: 500 }, T + 10);
    // The single starts leave at 1000: the first of them frees the tenth start.
    expect(refused).toEqual({ allowed: false, retryAt: T + 1000 });
    // The next refused job comes back one interval later.
    expect(takeStarts(window, limit, { starts: 1, holdMs: 0 }, T + 10)).toEqual({ allowed: false, retryAt: T + 1100 });
  });

  it('counts a block until a window after the end of its hold', () => {
    const window = empty();
    const limit = { limit: 4, perMs: 1000 };
    takeStarts(window, limit, { starts: 2, holdMs: 500 }, T);
    takeStarts(window, limit, { starts: 2, holdMs: 500 }, T);
    takeStarts(window, limit, { starts: 2, holdMs: 500 }, T);
    written(window, T);
    expect(startsInWindow(window, T)).toBe(4);
    // The block may have been used up to 500: its starts are counted until 1500; the two singles left at 1000.
    expect(takeStarts(window, limit, { starts: 1, holdMs: 0 }, T + 999)).toEqual({ allowed: false, retryAt: T + 1000 });
    expect(startsInWindow(window, T + 1499)).toBe(2);
    expect(startsInWindow(window, T + 1500)).toBe(0);
  });

  it('never lets more than `limit` starts begin in any window, however blocks are used within their holds', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const next = random(seed);
      const limit = { limit: [1, 2, 3, 5, 10, 40][seed % 6], perMs: 1000 };
      const window = empty();
      const began: number[] = [];
      for (let now = T; now < T + 20_000; now += Math.floor(next() * 40)) {
        const holdMs = Math.floor(next() * 1000);
        const asked = { starts: 1 + Math.floor(next() * 16), holdMs };
        const grant =
          next() < 0.3
            ? { allowed: true, starts: reserveStarts(window, limit, asked, now), holdMs }
            : takeStarts(window, limit, asked, now);
        written(window, now);
        if (!grant.allowed) continue;
        // Each start of the grant begins at some time within its hold; half the seeds push them all to its end.
        for (let n = 0; n < grant.starts; n++)
          began.push(now + (seed % 2 === 0 ? grant.holdMs : Math.floor(next() * (grant.holdMs + 1))));
      }
      began.sort((a, b) => a - b);
      for (let i = limit.limit; i < began.length; i++)
        expect(began[i] - began[i - limit.limit]).toBeGreaterThanOrEqual(1000);
      expect(began.length).toBeGreaterThan(limit.limit * 10);
    }
  });
});

describe('reserveStarts', () => {
  it('reserves up to half the limit and changes nothing past it', () => {
    const window = empty();
    const limit = { limit: 9, perMs: 1000 };
    expect(reserveStarts(window, limit, { starts: 3, holdMs: 200 }, T)).toBe(3);
    expect(reserveStarts(window, limit, { starts: 3, holdMs: 200 }, T)).toBe(1);
    const before = JSON.stringify(window);
    expect(reserveStarts(window, limit, { starts: 3, holdMs: 200 }, T)).toBe(0);
    expect(JSON.stringify(window)).toBe(before);
  });
});

describe('ratePartitionCodec', () => {
  it('reads stamps of this write as the write time, and entries of single starts written before groups', () => {
    const state = ratePartitionCodec.decode(
      JSON.stringify({
        keys: {
          a: {
            groups: [
              [0, 3, 200],
              [40, 1, 0],
            ],
            perMs: 1000,
            nextReserved: 0,
          },
          b: { starts: [0, 50], perMs: 500, nextReserved: 700 },
        },
      }),
      100,
    );
    expect(state.keys.a.groups).toEqual([
      [100, 3, 200],
      [40, 1, 0],
    ]);
    expect(state.keys.b).toEqual({
      groups: [
        [100, 1, 0],
        [50, 1, 0],
      ],
      perMs: 500,
      nextReserved: 700,
    });
    ratePartitionCodec.prune?.(state, 1100);
    // a's block lasts until 1300, its single start left at 1040; b's starts left and its last refused job was due at 700.
    expect(state.keys.a.groups).toEqual([[100, 3, 200]]);
    expect(state.keys.b).toBeUndefined();
  });
});

describe('ratePartitionCodec.settle', () => {
  it('leaves the state a write recorded as decoding its value would give', () => {
    const state = ratePartitionCodec.decode(undefined, 0);
    takeStarts((state.keys.a = empty()), { limit: 10, perMs: 1000 }, { starts: 3, holdMs: 200 }, T);
    takeStarts((state.keys.b = empty()), { limit: 10, perMs: 1000 }, { starts: 1, holdMs: 0 }, T);
    const decoded = ratePartitionCodec.decode(ratePartitionCodec.encode(state), T + 5);
    ratePartitionCodec.settle?.(state, T + 5);
    expect(state).toEqual(decoded);
  });
});
