import { ManualClock } from '@berth/contract/testing';
import { MongoClient, type Db } from 'mongodb';
import { defaultToolsBinDir, startFerretDb, type FerretDbHandle } from '@berth/local-infra';
import { ClientSummaryService } from './client-summary.service';
import { clientsCollections } from './clients.collections';

let ferret: FerretDbHandle;
let client: MongoClient;
let db: Db;
const clock = new ManualClock('2026-11-30T08:00:00Z');

beforeAll(async () => {
  ferret = await startFerretDb({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  client = await MongoClient.connect(ferret.url);
  db = client.db(`client_summary_${process.pid}`);
  const { workspaces, clients } = clientsCollections(db);
  await workspaces.insertMany([
    { _id: 'ws-1', name: 'One' },
    { _id: 'ws-gone', name: 'Gone', deletedAt: new Date('2026-01-01') },
  ]);
  await clients.insertMany([
    { _id: 'c1', workspaceId: 'ws-1', name: 'Old', createdAt: new Date('2026-01-01') },
    { _id: 'c2', workspaceId: 'ws-1', name: 'New', createdAt: new Date('2026-11-28') },
    {
      _id: 'c3',
      workspaceId: 'ws-1',
      name: 'Deleted',
      createdAt: new Date('2026-11-28'),
      deletedAt: new Date('2026-11-29'),
    },
  ]);
});
afterAll(async () => {
  await client?.close();
  await ferret?.stop();
});

describe('ClientSummaryService', () => {
  it('writes one summary per workspace and week; a second run changes nothing', async () => {
    const service = new ClientSummaryService(db, clock);
    await service.onModuleInit();
    expect(await service.sendSummary('ws-1')).toBe('written');
    expect(await service.sendSummary('ws-1')).toBe('already-written');
    const summaries = await clientsCollections(db).summaries.find({ workspaceId: 'ws-1' }).toArray();
    expect(summaries).toEqual([
      {
        _id: 'ws-1:2026-W49',
        workspaceId: 'ws-1',
        week: '2026-W49',
        clientCount: 2,
        newClientCount: 1,
        createdAt: clock.now(),
      },
    ]);
    clock.set('2026-12-07T08:00:00Z');
    expect(await service.sendSummary('ws-1')).toBe('written');
    expect(await clientsCollections(db).summaries.countDocuments({ workspaceId: 'ws-1' })).toBe(2);
  });

  it('skips a deleted or unknown workspace', async () => {
    const service = new ClientSummaryService(db, clock);
    expect(await service.sendSummary('ws-gone')).toBe('no-workspace');
    expect(await service.sendSummary('ws-unknown')).toBe('no-workspace');
  });
});
