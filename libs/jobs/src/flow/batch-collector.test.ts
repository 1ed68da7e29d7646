import { BatchCollector } from './batch-collector';

describe('BatchCollector', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('flushes a full batch at once, and starts the next one with the items after it', () => {
    const batches: number[][] = [];
    const collector = new BatchCollector<number>({ size: 3, waitMs: 200, flush: (items) => batches.push(items) });
    for (let i = 1; i <= 7; i++) collector.add(i);
    expect(batches).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    expect(collector.waiting).toBe(1);
    jest.advanceTimersByTime(199);
    expect(batches).toHaveLength(2);
    jest.advanceTimersByTime(1);
    expect(batches).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
    expect(collector.waiting).toBe(0);
  });

  it('waits waitMs from the first item of a batch, not from the last', () => {
    const batches: string[][] = [];
    const collector = new BatchCollector<string>({ size: 10, waitMs: 100, flush: (items) => batches.push(items) });
    collector.add('a');
    jest.advanceTimersByTime(60);
    collector.add('b');
    jest.advanceTimersByTime(40);
    expect(batches).toEqual([['a', 'b']]);
    collector.add('c');
    jest.advanceTimersByTime(99);
    expect(batches).toHaveLength(1);
    jest.advanceTimersByTime(1);
    expect(batches).toEqual([['a', 'b'], ['c']]);
  });

  it('flush() hands over what waits without waiting, and cancels the timer', () => {
    const batches: number[][] = [];
    const collector = new BatchCollector<number>({ size: 2, waitMs: 1000, flush: (items) => batches.push(items) });
    collector.add(1);
    collector.flush();
    expect(batches).toEqual([[1]]);
    jest.advanceTimersByTime(1000);
    expect(batches).toEqual([[1]]);
  });

  it('refuses a size that is not a positive integer and a negative waitMs', () => {
    const flush = (): void => undefined;
    expect(() => new BatchCollector({ size: 0, waitMs: 10, flush })).toThrow(/positive integer/);
    expect(() => new BatchCollector({ size: 2.5, waitMs: 10, flush })).toThrow(/positive integer/);
    expect(() => new BatchCollector({ size: 2, waitMs: -1, flush })).toThrow(/waitMs/);
  });
});
