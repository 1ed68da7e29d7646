import { PrioritySemaphore } from './priority-semaphore';

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('PrioritySemaphore', () => {
  it('hands a freed permit to the lowest rank waiting, in arrival order within a rank', async () => {
    const semaphore = new PrioritySemaphore(1);
    const order: string[] = [];
    const blocker = gate();
    const first = semaphore.run(() => blocker.promise);
    const tasks = [
      ['c1', 3],
      ['a1', 1],
      ['none1', 0],
      ['c2', 3],
      ['a2', 1],
      ['none2', 0],
    ].map(([name, rank]) =>
      semaphore.run(async () => {
        order.push(name as string);
      }, rank as number),
    );
    expect(semaphore.active).toBe(1);
    expect(semaphore.queued).toBe(6);
    blocker.open();
    await Promise.all([first, ...tasks]);
    expect(order).toEqual(['none1', 'none2', 'a1', 'a2', 'c1', 'c2']);
    expect(semaphore.active).toBe(0);
    expect(semaphore.queued).toBe(0);
  });

  it('never runs more than its permits, and a task that throws frees its permit', async () => {
    const semaphore = new PrioritySemaphore(3);
    let running = 0;
    let max = 0;
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, n) =>
        semaphore.run(async () => {
          running += 1;
          max = Math.max(max, running);
          await new Promise((resolve) => setImmediate(resolve));
          running -= 1;
          if (n % 5 === 0) throw new Error(`task ${n}`);
        }, n % 4),
      ),
    );
    expect(max).toBe(3);
    expect(results.filter((result) => result.status === 'rejected')).toHaveLength(6);
    expect(semaphore.active).toBe(0);
  });
});
