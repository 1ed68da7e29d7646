import { MongoClient, type CommandStartedEvent } from 'mongodb';
import { defaultToolsBinDir, startFerretDb, type FerretDbHandle } from '@berth/local-infra';
import { GroupCommit } from './group-commit';

interface Doc {
  _id: string;
  n: number;
}

let ferret: FerretDbHandle;
let client: MongoClient;
const started: CommandStartedEvent[] = [];

beforeAll(async () => {
  ferret = await startFerretDb({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  client = await MongoClient.connect(ferret.url, { monitorCommands: true });
  client.on('commandStarted', (event) => started.push(event));
});
afterAll(async () => {
  await client?.close();
  await ferret?.stop();
});

describe('GroupCommit', () => {
  it('sends inserts queued behind a write as one insertMany, telling each caller whether its document was a duplicate', async () => {
    const collection = client.db('group_commit').collection<Doc>('inserts');
    await collection.insertOne({ _id: 'taken', n: 0 });
    const writer = new GroupCommit(collection);
    started.length = 0;
    const ids = ['a', 'b', 'taken', 'c', 'b', 'd'];
    const results = await Promise.all(ids.map((id, n) => writer.insert({ _id: id, n })));
    expect(results).toEqual(['inserted', 'inserted', 'duplicate', 'inserted', 'duplicate', 'inserted']);
    // The first insert leaves alone at once; the five queued behind it leave together.
    expect(started.filter((event) => event.commandName === 'insert').map((event) => (event.command.documents as unknown[]).length)).toEqual([1, 5]);
    expect((await collection.find({}).sort({ _id: 1 }).toArray()).map((doc) => [doc._id, doc.n])).toEqual([['a', 0], ['b', 1], ['c', 3], ['d', 5], ['taken', 0]]);
  });

  it('runs updates one at a time in queue order, after the inserts queued before them, by _id alone', async () => {
    const collection = client.db('group_commit').collection<Doc>('updates');
    const writer = new GroupCommit(collection);
    started.length = 0;
    const outcomes = await Promise.all([
      writer.insert({ _id: 'x', n: 0 }),
      writer.update('x', { $set: { n: 1 } }),
      writer.update('x', { $inc: { n: 10 } }),
      writer.update('missing', { $set: { n: 1 } }),
    ]);
    expect(outcomes).toEqual(['inserted', true, true, false]);
    expect(await collection.findOne({ _id: 'x' })).toEqual({ _id: 'x', n: 11 });
    const updates = started.filter((event) => event.commandName === 'update');
    expect(updates.map((event) => (event.command.updates as { q: unknown }[]).map((statement) => statement.q))).toEqual([[{ _id: 'x' }], [{ _id: 'x' }], [{ _id: 'missing' }]]);
  });

  it('rejects the caller whose document failed for another reason than a duplicate, and settles the others of its batch', async () => {
    const collection = client.db('group_commit').collection<Doc>('failures');
    const writer = new GroupCommit(collection);
    const bad = { _id: 'bad', n: 1, 'dotted.key': 1 } as unknown as Doc;
    const results = await Promise.allSettled([writer.insert({ _id: 'first', n: 0 }), writer.insert(bad), writer.insert({ _id: 'fine', n: 2 })]);
    expect(results[0]).toEqual({ status: 'fulfilled', value: 'inserted' });
    expect(results[1].status).toBe('rejected');
    expect(results[2]).toEqual({ status: 'fulfilled', value: 'inserted' });
  });
});
