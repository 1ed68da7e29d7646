import { ServerClock } from './server-clock';

describe('ServerClock', () => {
  it('reads the server time as the latest timestamp seen plus the monotonic time since', () => {
    let monotonic = 1000;
    const clock = new ServerClock(() => monotonic);
    expect(clock.calibrated).toBe(false);
    expect(clock.now(5)).toBe(5);
    clock.observe(1_800_000_000_000);
    expect(clock.calibrated).toBe(true);
    monotonic += 250;
    expect(clock.now()).toBe(1_800_000_000_250);
  });

  it('keeps the largest lower bound: an old timestamp read late does not pull it back', () => {
    let monotonic = 0;
    const clock = new ServerClock(() => monotonic);
    clock.observe(1_800_000_000_000);
    monotonic = 100;
    clock.observe(1_799_999_990_000); // an entry written ten seconds before, read now
    expect(clock.now()).toBe(1_800_000_000_100);
  });

  it('ignores the wall clock of this machine', () => {
    let monotonic = 0;
    const clock = new ServerClock(() => monotonic);
    clock.observe(1_800_000_000_000);
    const wall = jest.spyOn(Date, 'now').mockReturnValue(1_900_000_000_000);
    monotonic = 10;
    expect(clock.now()).toBe(1_800_000_000_010);
    wall.mockRestore();
  });

  it('ages observations out after two minutes, so a drifting monotonic clock cannot carry an old one far', () => {
    let monotonic = 0;
    const clock = new ServerClock(() => monotonic);
    clock.observe(1_800_000_000_000 + 50); // a reading 50 ms too high (say, a fast clock)
    monotonic = 61_000;
    clock.observe(1_800_000_061_000);
    monotonic = 122_000;
    clock.observe(1_800_000_122_000);
    expect(clock.now()).toBe(1_800_000_122_000);
  });
});
