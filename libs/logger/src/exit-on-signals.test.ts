import { createLogger } from './index';
import { exitOnSignals } from './exit-on-signals';

const logger = createLogger({ service: 'signals-test', level: 'silent' });

describe('exitOnSignals', () => {
  it('closes once on the first signal and exits 0; a second signal does not close again', async () => {
    let closes = 0;
    const exited: number[] = [];
    let finish!: () => void;
    const remove = exitOnSignals(
      () => {
        closes += 1;
        return new Promise<void>((resolve) => (finish = resolve));
      },
      { logger, signals: ['SIGUSR2'], exit: (code) => exited.push(code) },
    );
    process.emit('SIGUSR2', 'SIGUSR2');
    process.emit('SIGUSR2', 'SIGUSR2');
    expect(closes).toBe(1);
    expect(exited).toEqual([]);
    finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(exited).toEqual([0]);
    remove();
  });

  it('exits 1 when closing fails', async () => {
    const exited: number[] = [];
    const remove = exitOnSignals(
      async () => {
        throw new Error('stuck');
      },
      { logger, signals: ['SIGUSR2'], exit: (code) => exited.push(code) },
    );
    process.emit('SIGUSR2', 'SIGUSR2');
    await new Promise((resolve) => setImmediate(resolve));
    expect(exited).toEqual([1]);
    remove();
  });
});
