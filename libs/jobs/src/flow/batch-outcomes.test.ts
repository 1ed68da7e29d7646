import { UnrecoverableError } from '@berth/messaging';
import { BatchJobError } from '../errors';
import { batchOutcomes } from './batch-outcomes';

describe('batchOutcomes', () => {
  const ids = ['a', 'b', 'c'];

  it('completes every job when the handler resolved', () => {
    expect([...batchOutcomes(ids)]).toEqual([
      ['a', undefined],
      ['b', undefined],
      ['c', undefined],
    ]);
  });

  it('fails every job with the error of a handler that threw', () => {
    const error = new Error('database down');
    expect([...batchOutcomes(ids, { error }).values()]).toEqual([error, error, error]);
  });

  it('fails only the jobs a BatchJobError lists, ignoring ids not in the batch', () => {
    const bad = new UnrecoverableError('bad address');
    const outcomes = batchOutcomes(ids, {
      error: new BatchJobError([
        { jobId: 'b', error: bad },
        { jobId: 'zz', error: new Error('not ours') },
      ]),
    });
    expect([...outcomes]).toEqual([
      ['a', undefined],
      ['b', bad],
      ['c', undefined],
    ]);
  });

  it('gives a listed failure without an error one, so it is not taken for a success', () => {
    const outcomes = batchOutcomes(ids, { error: new BatchJobError([{ jobId: 'c', error: undefined }]) });
    expect(outcomes.get('c')).toBeInstanceOf(Error);
    expect(outcomes.get('a')).toBeUndefined();
  });
});
