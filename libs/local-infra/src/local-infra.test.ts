import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { MongoClient } from 'mongodb';
import { defaultToolsBinDir, startFerretDb, startNatsServer } from './index';

const binDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);

describe('local infrastructure', () => {
  it('starts nats-server with JetStream fsyncing always, and restarts it on the same port', async () => {
    const server = await startNatsServer({ binDir });
    try {
      const nc = await connect({ servers: server.url });
      const jsm = await jetstreamManager(nc);
      const info = await jsm.getAccountInfo();
      expect(info.limits).toBeDefined();
      await nc.close();
      const port = server.port;
      await server.restart();
      expect(server.port).toBe(port);
      const again = await connect({ servers: server.url });
      await again.close();
    } finally {
      await server.stop();
    }
  });

  it.each([
    [undefined, 1],
    [2, 2],
  ])(
    'runs nats-server with maxProcs %p as %p Go scheduler thread(s), as its /varz reports',
    async (maxProcs, expected) => {
      const server = await startNatsServer({ binDir, monitoring: true, maxProcs });
      try {
        const varz = (await (await fetch(`${server.monitoringUrl}/varz`)).json()) as { gomaxprocs?: number };
        expect(varz.gomaxprocs).toBe(expected);
      } finally {
        await server.stop();
      }
    },
  );

  it('refuses a maxProcs that is not a positive integer', async () => {
    await expect(startNatsServer({ binDir, maxProcs: 0 })).rejects.toThrow(/maxProcs must be a positive integer/);
  });

  it('starts the embedded store, refuses clients without its password, and keeps data across a crash', async () => {
    const store = await startFerretDb({ binDir });
    try {
      const anonymous = new MongoClient(store.url.replace(/\/\/[^@]+@/, '//'), { serverSelectionTimeoutMS: 5000 });
      await expect(anonymous.db('berth_local_infra').collection('things').insertOne({ n: 0 })).rejects.toThrow(
        /requires authentication/,
      );
      await anonymous.close();
      let client = await MongoClient.connect(store.url);
      await client
        .db('berth_local_infra')
        .collection('things')
        .insertOne({ _id: 'a' as never, n: 1 });
      await client.close();
      // An immediate shutdown of PostgreSQL keeps what was committed: the restart replays its write-ahead log.
      await store.kill();
      await store.restart();
      client = await MongoClient.connect(store.url);
      const found = await client
        .db('berth_local_infra')
        .collection('things')
        .findOne({ _id: 'a' as never });
      expect(found?.n).toBe(1);
      await client.close();
    } finally {
      await store.stop();
    }
  });

  it('plans a filter on _id and a compound filter through an index, as PostgreSQL reports it', async () => {
    const store = await startFerretDb({ binDir });
    const client = await MongoClient.connect(store.url);
    try {
      const things = client.db('berth_index_plan').collection<{ _id: string; n: number; until: number }>('things');
      await things.createIndex({ n: 1, until: 1 });
      await things.insertMany(Array.from({ length: 2000 }, (_, n) => ({ _id: `thing:${n}`, n, until: n })));
      const plan = async (filter: object): Promise<string> => JSON.stringify(await things.find(filter).explain());
      expect(await plan({ _id: 'thing:7' })).toMatch(/Index Scan|Bitmap Index Scan|_id_/);
      expect(await plan({ n: 7, until: { $lt: 10 } })).toMatch(/Index Scan|Bitmap Index Scan/);
      await expect(things.insertOne({ _id: 'thing:7', n: 0, until: 0 })).rejects.toMatchObject({ code: 11000 });
    } finally {
      await client.close();
      await store.stop();
    }
  });
});
