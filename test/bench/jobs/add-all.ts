/** Calls `add(i)` for i in [0, n) with at most `window` calls awaiting at once (many producers adding jobs). */
export async function addAll(n: number, window: number, add: (index: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(window, n) }, async () => {
      while (next < n) {
        const index = next;
        next += 1;
        await add(index);
      }
    }),
  );
}
