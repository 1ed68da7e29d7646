import { loadAppWorkerConfig } from './config';

describe('app-worker config', () => {
  it('reads SHUTDOWN_GRACE_MS as every service does, and its older name WORKER_SHUTDOWN_GRACE_MS when it is unset', () => {
    expect(loadAppWorkerConfig({}).shutdownGraceMs).toBe(25_000);
    expect(loadAppWorkerConfig({ SHUTDOWN_GRACE_MS: '5000' }).shutdownGraceMs).toBe(5000);
    expect(loadAppWorkerConfig({ WORKER_SHUTDOWN_GRACE_MS: '7000' }).shutdownGraceMs).toBe(7000);
    expect(loadAppWorkerConfig({ SHUTDOWN_GRACE_MS: '5000', WORKER_SHUTDOWN_GRACE_MS: '7000' }).shutdownGraceMs).toBe(
      5000,
    );
    expect(() => loadAppWorkerConfig({ WORKER_SHUTDOWN_GRACE_MS: '0' })).toThrow(/SHUTDOWN_GRACE_MS/);
  });

  it('defaults the health port to 9466 whatever NODE_ENV says', () => {
    expect(loadAppWorkerConfig({ NODE_ENV: 'test' }).healthPort).toBe(9466);
    expect(loadAppWorkerConfig({ NODE_ENV: 'production' }).healthPort).toBe(9466);
  });
});
