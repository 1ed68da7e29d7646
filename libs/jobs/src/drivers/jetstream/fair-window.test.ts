import { encodeJobRecords, type JobRecord } from '../../job-record';
import { decodeEmitted, FairWindow } from './fair-window';

const subjectOf = (name: string, priority: number | undefined) => `jobs.q.${name}${priority ? `.p${priority}` : ''}`;

let nextId = 0;
function body(keys: string[], extra: Partial<JobRecord> = {}): string {
  return encodeJobRecords(
    keys.map((fairKey) => ({
      id: `j${nextId++}`,
      data: { fairKey },
      retryLimit: 0,
      attemptsMade: 0,
      addedAt: new Date(0).toISOString(),
      fairKey,
      ...extra,
    })),
  );
}

/** The fair keys of the jobs taken, in order. */
function keysOf(window: FairWindow, refs: ReturnType<FairWindow['take']>): string[] {
  return refs.map((ref) => (JSON.parse(window.job(ref)!.record) as JobRecord).fairKey!);
}

describe('FairWindow', () => {
  it('deals one job per key a turn, in key order, whatever order the messages came in', () => {
    const window = new FairWindow(subjectOf);
    window.add(1, body(['b', 'b', 'b', 'a']), 'Job');
    window.add(2, body(['c', 'a', 'b']), 'Job');
    expect(window.waiting).toBe(7);
    expect(keysOf(window, window.take(5))).toEqual(['a', 'b', 'c', 'a', 'b']);
    expect(keysOf(window, window.take(5))).toEqual(['b', 'b']);
    expect(window.waiting).toBe(0);
  });

  it('keeps a key with a long backlog from holding up one with a few', () => {
    const window = new FairWindow(subjectOf);
    window.add(1, body(Array.from({ length: 100 }, () => 'big')), 'Job');
    expect(keysOf(window, window.take(3))).toEqual(['big', 'big', 'big']); // alone, it takes all the room
    window.add(2, body(['small', 'small']), 'Job');
    expect(keysOf(window, window.take(4))).toEqual(['small', 'big', 'small', 'big']);
  });

  it('gives a key of weight w w jobs a turn, and resumes a turn cut short by the room', () => {
    const window = new FairWindow(subjectOf);
    window.add(
      1,
      body(
        Array.from({ length: 10 }, () => 'heavy'),
        { fairWeight: 3 },
      ),
      'Job',
    );
    window.add(2, body(Array.from({ length: 10 }, () => 'light')), 'Job');
    expect(keysOf(window, window.take(2))).toEqual(['heavy', 'heavy']);
    expect(keysOf(window, window.take(6))).toEqual(['heavy', 'light', 'heavy', 'heavy', 'heavy', 'light']);
  });

  it('leaves the keys it is told to skip waiting', () => {
    const window = new FairWindow(subjectOf);
    window.add(1, body(['a', 'b', 'a', 'b']), 'Job');
    expect(
      keysOf(
        window,
        window.take(4, (key) => key === 'a'),
      ),
    ).toEqual(['b', 'b']);
    expect(keysOf(window, window.take(4))).toEqual(['a', 'a']);
  });

  it('names each job by its JOBS subject and finishes a message once all of its jobs were taken', () => {
    const window = new FairWindow(subjectOf);
    window.add(7, body(['a', 'b'], { priority: 2 }), 'Send');
    window.add(8, body(['a']), 'Other');
    const first = window.take(1);
    expect(window.job(first[0])!.subject).toBe('jobs.q.Send.p2');
    expect(window.finished()).toEqual([]);
    expect(window.oldestUnfinished()).toBe(7);
    window.take(2);
    expect(window.finished()).toEqual([7, 8]);
    expect(window.oldestUnfinished()).toBeUndefined();
    window.drop(7);
    expect(window.has(7)).toBe(false);
    expect(Object.keys(window.emitted())).toEqual(['8']);
  });

  it('skips the jobs a plan marks moved when it reads their message again', () => {
    const before = new FairWindow(subjectOf);
    const stored = body(['a', 'b', 'c']);
    before.add(3, stored, 'Job');
    expect(keysOf(before, before.take(2))).toEqual(['a', 'b']);
    const marks = before.emitted();

    const after = new FairWindow(subjectOf);
    after.add(3, stored, 'Job', decodeEmitted(marks['3']));
    expect(after.waiting).toBe(1);
    expect(keysOf(after, after.take(5))).toEqual(['c']);
    expect(after.finished()).toEqual([3]);
  });

  it('stops reading at its limits', () => {
    const window = new FairWindow(subjectOf, { maxJobs: 3, maxMessages: 10 });
    window.add(1, body(['a', 'b']), 'Job');
    expect(window.hasRoom()).toBe(true);
    window.add(2, body(['c']), 'Job');
    expect(window.hasRoom()).toBe(false);
    window.take(1);
    expect(window.hasRoom()).toBe(true);
  });

  it('holds a body that is not a list of job records as finished, so it is removed', () => {
    const window = new FairWindow(subjectOf);
    window.add(1, 'not json', 'Job');
    expect(window.waiting).toBe(0);
    expect(window.finished()).toEqual([1]);
  });

  it('names the oldest unfinished message and the finished ones in stream order, whatever order they came in', () => {
    const window = new FairWindow(subjectOf);
    window.add(9, body(['a']), 'Job');
    window.add(4, body(['a']), 'Job');
    window.add(2, body(['b']), 'Job');
    expect(window.oldestUnfinished()).toBe(2);
    window.take(2); // a's oldest line entry (9, read first) and b's (2)
    expect(window.finished()).toEqual([2, 9]);
    expect(window.oldestUnfinished()).toBe(4);
  });

  it('gives a key no more jobs a call than the concurrency limit its jobs were added with', () => {
    const window = new FairWindow(subjectOf);
    window.add(
      1,
      body(
        Array.from({ length: 10 }, () => 'big'),
        { concurrency: { key: 'big', limit: 2 } },
      ),
      'Job',
    );
    window.add(2, body(['free', 'free', 'free']), 'Job');
    expect(keysOf(window, window.take(100))).toEqual(['big', 'free', 'big', 'free', 'free']);
    expect(keysOf(window, window.take(100))).toEqual(['big', 'big']);
  });
});
