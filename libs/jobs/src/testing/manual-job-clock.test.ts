import { ManualJobClock } from './index';

it('fires timers in due order as time is let pass, moving both readings, and cancels them', async () => {
  const clock = new ManualJobClock('2026-01-01T00:00:00Z');
  const fired: string[] = [];
  clock.setTimer(300, () => fired.push(`b ${clock.monotonic()}`));
  clock.setTimer(100, () => {
    fired.push(`a ${clock.monotonic()}`);
    clock.setTimer(50, () => fired.push(`a2 ${clock.monotonic()}`));
  });
  const cancel = clock.setTimer(200, () => fired.push('cancelled'));
  cancel();
  await clock.advance(250);
  expect(fired).toEqual(['a 100', 'a2 150']);
  expect(clock.now()).toBe(Date.parse('2026-01-01T00:00:00.250Z'));
  await clock.advance(100);
  expect(fired).toEqual(['a 100', 'a2 150', 'b 300']);
  expect(clock.pendingTimers).toBe(0);
});
