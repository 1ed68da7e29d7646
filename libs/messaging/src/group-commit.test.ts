import { ManualClock } from '@berth/contract/testing';
import { GroupCommitFullError, GroupCommitQueue, GroupCommitTimeoutError } from './group-commit';
import type { PublishResult } from './publisher';

/** A fake publish whose PubAcks the test releases one by one. */
function fakePublish() {
  const calls: { subject: string; ids: string[]; release: () => void; fail: (error: Error) => void }[] = [];
  let seq = 0;
  const deadlines: number[] = [];
  const publish = (subject: string, ids: string[], deadline: number) =>
    new Promise<PublishResult>((resolve, reject) => {
      deadlines.push(deadline);
      calls.push({
        subject,
        ids,
        release: () => resolve({ stream: 'JOBS', seq: ++seq, duplicate: false }),
        fail: reject,
      });
    });
  return { calls, publish, deadlines };
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
    const batcher = new GroupCommitQueue(publish, {
      maxInFlightPerKey: 1,
      maxItemsPerMessage: 2,
      maxBytesPerMessage: 1024,
    });
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

  it("rejects items still waiting after maxWaitMs, and commits a message with its oldest item's deadline", async () => {
    const { calls, publish, deadlines } = fakePublish();
    const clock = new ManualClock();
    clock.advance(1000);
    const batcher = new GroupCommitQueue(publish, { maxInFlightPerKey: 1, maxWaitMs: 100, clock });
    const first = batcher.enqueue('k', 'a', 1);
    await endOfTurn();
    expect(deadlines).toEqual([1100]);
    clock.advance(50);
    const waiting = batcher.enqueue('k', 'b', 1);
    clock.advance(101);
    await expect(waiting).rejects.toBeInstanceOf(GroupCommitTimeoutError);
    expect(batcher.waiting).toBe(0);
    calls[0].release();
    expect((await first).seq).toBe(1);
  });

  it('refuses at once past maxPendingItemsPerKey or maxPendingBytesPerKey waiting items of a key, other keys unaffected', async () => {
    const { calls, publish } = fakePublish();
    const batcher = new GroupCommitQueue(publish, {
      maxInFlightPerKey: 1,
      maxPendingItemsPerKey: 2,
      maxPendingBytesPerKey: 10,
    });
    const first = batcher.enqueue('k', 'a', 1);
    await endOfTurn();
    const queued = [batcher.enqueue('k', 'b', 1), batcher.enqueue('k', 'c', 1)];
    await expect(batcher.enqueue('k', 'd', 1)).rejects.toBeInstanceOf(GroupCommitFullError);
    const other = batcher.enqueue('other', 'x', 1);
    const big = new GroupCommitQueue(publish, { maxInFlightPerKey: 1, maxPendingBytesPerKey: 10 });
    const bigFirst = big.enqueue('b', 'p', 1);
    await endOfTurn();
    const bigQueued = big.enqueue('b', 'q', 8);
    await expect(big.enqueue('b', 'r', 3)).rejects.toBeInstanceOf(GroupCommitFullError);
    for (const call of calls) call.release();
    await endOfTurn();
    for (const call of calls) call.release();
    await Promise.all([first, ...queued, other, bigFirst, bigQueued]);
  });
});
