import { Writable } from 'node:stream';
import { createLogger, LogContextStore } from './index';

function capture(): { lines: Record<string, unknown>[]; stream: Writable } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { lines, stream };
}

describe('createLogger', () => {
  it('adds the job fields of the surrounding context to every line, and only inside it', async () => {
    const context = new LogContextStore();
    const { lines, stream } = capture();
    const logger = createLogger({ service: 'test', context, destination: stream });
    await context.run({ jobName: 'SendClientSummaryJob', jobId: 'j1', queue: 'client-queue', attempt: 2 }, async () => {
      await Promise.resolve();
      logger.info('inside');
    });
    logger.info('outside');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines[0]).toMatchObject({
      msg: 'inside',
      service: 'test',
      jobName: 'SendClientSummaryJob',
      jobId: 'j1',
      queue: 'client-queue',
      attempt: 2,
    });
    expect(lines[1].jobName).toBeUndefined();
  });
});
