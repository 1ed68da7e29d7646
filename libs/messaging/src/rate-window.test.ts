import { takeStart, type RateWindow } from './rate-window';

describe('takeStart (sliding-log rate limit)', () => {
  const limit = { limit: 3, perMs: 1000 };

  it('allows `limit` starts in a window, refuses the next until the oldest is `perMs` old', () => {
    let window: RateWindow = { starts: [], nextReserved: 0 };
    for (const at of [0, 10, 20]) {
      const decision = takeStart(window, limit, at);
      expect(decision.allowed).toBe(true);
      window = decision.window;
    }
    const refused = takeStart(window, limit, 30);
    expect(refused).toMatchObject({ allowed: false, retryAt: 1000 });
    expect(takeStart(refused.window, limit, 999).allowed).toBe(false);
    expect(takeStart(refused.window, limit, 1000).allowed).toBe(true);
  });

  it('spreads refused jobs one interval apart', () => {
    let window: RateWindow = { starts: [0, 0, 0], nextReserved: 0 };
    const times: number[] = [];
    for (let n = 0; n < 4; n++) {
      const decision = takeStart(window, limit, 5);
      if (decision.allowed) throw new Error('expected a refusal');
      times.push(decision.retryAt);
      window = decision.window;
    }
    expect(times.map(Math.round)).toEqual([1000, 1333, 1667, 2000]);
  });

  it('never lets any window of perMs hold more than `limit` starts, whatever the arrival times', () => {
    let window: RateWindow = { starts: [], nextReserved: 0 };
    const started: number[] = [];
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let at = 0; at < 20000; at += Math.floor(random() * 60)) {
      const decision = takeStart(window, limit, at);
      window = decision.window;
      if (decision.allowed) started.push(at);
    }
    for (let i = limit.limit; i < started.length; i++)
      expect(started[i] - started[i - limit.limit]).toBeGreaterThanOrEqual(limit.perMs);
    expect(started.length).toBeGreaterThan(55);
  });
});
