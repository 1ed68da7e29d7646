import { MongoBulkWriteError, MongoNetworkError, type BulkWriteResult } from 'mongodb';
import { assertAccounted, BulkOperationError, writeErrorsByIndex } from './bulk-write-errors';

/** A bulk write error as the driver raises it: the server's reply and the result of what it ran. */
function bulkError(writeErrors: { index: number; code: number; errmsg: string }[], result: Partial<BulkWriteResult>) {
  return new MongoBulkWriteError(
    {
      message: writeErrors[0]?.errmsg ?? 'connection closed during the write',
      code: writeErrors[0]?.code ?? 91,
      writeErrors,
    } as never,
    result as BulkWriteResult,
  );
}

describe('writeErrorsByIndex', () => {
  it('gives the refused operations by index, each readable as a single write error', () => {
    const errors = writeErrorsByIndex(bulkError([{ index: 2, code: 11000, errmsg: 'E11000 duplicate key' }], {}));
    expect([...errors.keys()]).toEqual([2]);
    expect(errors.get(2)).toBeInstanceOf(BulkOperationError);
    expect(errors.get(2)).toMatchObject({ code: 11000, errmsg: 'E11000 duplicate key' });
  });

  it('throws back a write that failed as a whole: a network error, or a bulk write error naming no operation', () => {
    const network = new MongoNetworkError('connection reset');
    expect(() => writeErrorsByIndex(network)).toThrow(network);
    // The driver's error for a command that failed part-way (the store shutting down): no write errors, and a
    // result that counts nothing, which must not read as "every operation written".
    const partWay = bulkError([], { insertedCount: 0, matchedCount: 0, upsertedIds: {} });
    expect(() => writeErrorsByIndex(partWay)).toThrow(partWay);
  });
});

describe('assertAccounted', () => {
  it('throws the error back when the counts do not cover the operations about to be taken as written', () => {
    const error = new Error('part-way');
    expect(() => assertAccounted(error, 2, 3)).toThrow(error);
    expect(() => assertAccounted(error, 3, 3)).not.toThrow();
  });
});
