import { waitFor } from './wait-for';

describe('waitFor', () => {
  it('returns the first truthy value', async () => {
    let calls = 0;
    await expect(
      waitFor(() => (++calls >= 3 ? `after ${calls}` : null), { what: 'three calls', intervalMs: 1 }),
    ).resolves.toBe('after 3');
  });

  it('with until, returns the first value it accepts, falsy ones included', async () => {
    const values = [3, 2, 1, 0, -1];
    await expect(
      waitFor(() => values.shift()!, { what: 'zero', until: (value) => value === 0, intervalMs: 1 }),
    ).resolves.toBe(0);
    expect(values).toEqual([-1]);
  });

  it('tries again after a check throws', async () => {
    let calls = 0;
    const check = (): string => {
      calls += 1;
      if (calls < 3) throw new Error('server away');
      return 'back';
    };
    await expect(waitFor(check, { what: 'the server', intervalMs: 1 })).resolves.toBe('back');
  });

  it('rejects after the deadline naming what it waited for and the last value seen', async () => {
    await expect(
      waitFor(() => ({ ready: false }), {
        what: 'readiness',
        until: (value) => value.ready,
        timeoutMs: 30,
        intervalMs: 5,
      }),
    ).rejects.toThrow('Timed out after 30 ms waiting for readiness; last seen: {"ready":false}');
  });
});
