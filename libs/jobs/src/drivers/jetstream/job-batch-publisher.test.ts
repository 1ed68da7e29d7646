import type { PublishResult } from '@berth/messaging';
import { JobBatchPublisher } from './job-batch-publisher';

/** A fake publish whose PubAcks the test releases one by one. */
function fakePublish() {
  const calls: { subject: string; ids: string[]; release: () => void; fail: (error: Error) => void }[] = [];
  let seq = 0;
  const publish = (subject: string, _encoded: string[], ids: string[]) =>
    new Promise<PublishResult>((resolve, reject) => {
      calls.push({ subject, ids, release: () => resolve({ stream: 'JOBS', seq: ++seq, duplicate: false }), fail: reject });
    });
  return { calls, publish };
}

describe('JobBatchPublisher (group commit of add)', () => {
  it('sends a lone job at once, and gathers jobs added meanwhile into the next message', async () => {
    const { calls, publish } = fakePublish();
    const batcher = new JobBatchPublisher(publish, { maxInFlightPerSubject: 1 });
    const first = batcher.enqueue('jobs.q.A', 'j0', '{}');
    expect(calls.map((call) => call.ids)).toEqual([['j0']]);
    const rest = ['j1', 'j2', 'j3'].map((id) => batcher.enqueue('jobs.q.A', id, '{}'));
    const other = batcher.enqueue('jobs.q.B', 'k1', '{}');
    expect(calls.map((call) => call.ids)).toEqual([['j0'], ['k1']]);
    calls[0].release();
    expect((await first).seq).toBe(1);
    await Promise.resolve();
    expect(calls.map((call) => call.ids)).toEqual([['j0'], ['k1'], ['j1', 'j2', 'j3']]);
    calls[1].release();
    calls[2].release();
    expect((await Promise.all(rest)).map((ack) => ack.seq)).toEqual([3, 3, 3]);
    expect((await other).seq).toBe(2);
  });

  it('caps a message by jobs and bytes, and rejects every add of a failed message', async () => {
    const { calls, publish } = fakePublish();
    const batcher = new JobBatchPublisher(publish, { maxInFlightPerSubject: 1, maxJobsPerMessage: 2, maxBytesPerMessage: 1024 });
    const first = batcher.enqueue('s', 'a', '{}');
    const pending = ['b', 'c', 'd'].map((id) => batcher.enqueue('s', id, '{}'));
    const big = batcher.enqueue('s', 'big', 'x'.repeat(2000));
    calls[0].release();
    await first;
    await Promise.resolve();
    expect(calls[1].ids).toEqual(['b', 'c']);
    calls[1].fail(new Error('stream full'));
    await expect(pending[0]).rejects.toThrow('stream full');
    await expect(pending[1]).rejects.toThrow('stream full');
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls[2].ids).toEqual(['d']);
    calls[2].release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls[3].ids).toEqual(['big']);
    calls[3].release();
    await expect(Promise.all([pending[2], big])).resolves.toHaveLength(2);
  });
});
