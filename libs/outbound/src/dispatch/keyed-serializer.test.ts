import { KeyedSerializer } from './keyed-serializer';

describe('KeyedSerializer', () => {
  it('runs the tasks of a key in submission order, even after a failure, and other keys alongside', async () => {
    const serializer = new KeyedSerializer();
    const log: string[] = [];
    const task =
      (name: string, ms: number, fail = false) =>
      () =>
        new Promise<void>((resolve, reject) =>
          setTimeout(() => {
            log.push(name);
            if (fail) reject(new Error(name));
            else resolve();
          }, ms),
        );
    const results = await Promise.allSettled([
      serializer.run('a', task('a1', 30, true)),
      serializer.run('a', task('a2', 1)),
      serializer.run('b', task('b1', 5)),
    ]);
    expect(log).toEqual(['b1', 'a1', 'a2']);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
  });
});
