import { GroupCommitQueue } from './group-commit';
import type { PublishResult } from './publisher';

/** A fake publish whose PubAcks the test releases one by one. */
function fakePublish() {
  const calls: { subject: string; ids: string[]; release: () => void; fail: (error: Error) => void }[] = [];
  let seq = 0;
  const publish = (subject: string, ids: string[]) =>
    new Promise<PublishResult>((resolve, reject) => {
      calls.push({ subject, ids, release: () => resolve({ stream: 'JOBS', seq: ++seq, duplicate: false }), fail: reject });
    });
  return { calls, publish };
}

/**
 * Resolves once the flushes the queue scheduled so far have run: two `setImmediate` hops, since a flush scheduled
 * while a PubAck settles is queued behind an immediate the test sets up in the same turn.
 */
const endOfTurn = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

describe('GroupCommitQueue', () => {
  it('sends a lone item at the end of the turn, and gathers items queued meanwhile into the next message', async () => {
    const { calls, publish } = fakePublish();
    const batcher = new GroupCommitQueue(publish, { maxInFlightPerKey: 1 });
    const first = batcher.enqueue('jobs.q.A', 'j0', 2);
    expect(calls).toHaveLength(0);
    await endOfTurn();
    expect(calls.map((call) => call.ids)).toEqual([['j0']]);
    const rest = ['j1', 'j2', 'j3'].map((id) => batcher.enqueue('jobs.q.A', id, 2));
    const other = batcher.enqueue('jobs.q.B', 'k1', 2);
    await endOfTurn();
    expect(calls.map((call) => call.ids)).toEqual([['j0'], ['k1']]);
    calls[0].release();
    expect((await first).seq).toBe(1);
    await endOfTurn();
    expect(calls.map((call) => call.ids)).toEqual([['j0'], ['k1'], ['j1', 'j2', 'j3']]);
    calls[1].release();
    calls[2].release();
    expect((await Promise.all(rest)).map((ack) => ack.seq)).toEqual([3, 3, 3]);
    expect((await other).seq).toBe(2);
  });

  it('caps a message by items and bytes, and rejects every item of a failed message', async () => {
    const { calls, publish } = fakePublish();
    const batcher = new GroupCommitQueue(publish, { maxInFlightPerKey: 1, maxItemsPerMessage: 2, maxBytesPerMessage: 1024 });
    const first = batcher.enqueue('s', 'a', 2);
    await endOfTurn();
    const pending = ['b', 'c', 'd'].map((id) => batcher.enqueue('s', id, 2));
    const big = batcher.enqueue('s', 'big', 2000);
    calls[0].release();
    await first;
    await endOfTurn();
    expect(calls[1].ids).toEqual(['b', 'c']);
    calls[1].fail(new Error('stream full'));
    await expect(pending[0]).rejects.toThrow('stream full');
    await expect(pending[1]).rejects.toThrow('stream full');
    await endOfTurn();
    expect(calls[2].ids).toEqual(['d']);
    calls[2].release();
    await endOfTurn();
    expect(calls[3].ids).toEqual(['big']);
    calls[3].release();
    await expect(Promise.all([pending[2], big])).resolves.toHaveLength(2);
  });

  it('sends every item queued in one turn as one message, the first one included', async () => {
    const { calls, publish } = fakePublish();
    const batcher = new GroupCommitQueue(publish, { maxInFlightPerKey: 1 });
    const acks = ['a', 'b', 'c'].map((id) => batcher.enqueue('s', id, 2));
    await endOfTurn();
    expect(calls.map((call) => call.ids)).toEqual([['a', 'b', 'c']]);
    calls[0].release();
    expect((await Promise.all(acks)).map((ack) => ack.seq)).toEqual([1, 1, 1]);
    expect(batcher.waiting).toBe(0);
  });
});
