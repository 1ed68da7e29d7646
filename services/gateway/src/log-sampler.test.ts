import { LogSampler } from './log-sampler';

describe('LogSampler', () => {
  it('writes so many lines per window, then says how many it left out', () => {
    const sampler = new LogSampler({ linesPerWindow: 2, windowMs: 1000 });
    expect([0, 1, 2, 3, 4].map((at) => sampler.take(at))).toEqual([0, 0, undefined, undefined, undefined]);
    expect(sampler.take(1000)).toBe(3);
    expect(sampler.take(1001)).toBe(0);
    expect(sampler.take(1002)).toBeUndefined();
  });
});
