import { UnrecoverableError } from '@berth/messaging';
import { decodeJobRecords, encodeJobRecord, joinEncodedRecords, type JobRecord } from './job-record';

const record: JobRecord = {
  id: 'j1',
  data: { workspaceId: 'w1' },
  retryLimit: 3,
  attemptsMade: 0,
  addedAt: '2026-11-30T08:00:00.000Z',
};

describe('job records', () => {
  it('round-trips one or several records', () => {
    expect(decodeJobRecords(joinEncodedRecords([encodeJobRecord(record)]))).toEqual([record]);
    expect(
      decodeJobRecords(
        joinEncodedRecords([encodeJobRecord(record), encodeJobRecord({ ...record, id: 'j2', data: null })]),
      ),
    ).toHaveLength(2);
  });

  it('refuses a body that is not a list of records, as unrecoverable', () => {
    for (const body of ['not json', '{}', '[]', '[{"id":"x"}]', JSON.stringify([{ ...record, retryLimit: -1 }])]) {
      expect(() => decodeJobRecords(body)).toThrow(UnrecoverableError);
    }
  });
});
