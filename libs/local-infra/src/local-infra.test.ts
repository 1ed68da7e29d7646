import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { MongoClient } from 'mongodb';
import { defaultToolsBinDir, FERRETDB_SQLITE_POOL_SIZE, startFerretDb, startNatsServer } from './index';

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

  it('starts FerretDB on SQLite and keeps data across a restart', async () => {
    const db = await startFerretDb({ binDir });
    try {
      let client = await MongoClient.connect(db.url);
      // SQLite has one writer: clients get a small pool through the URL (FERRETDB_SQLITE_POOL_SIZE).
      expect(client.options.maxPoolSize).toBe(FERRETDB_SQLITE_POOL_SIZE);
      await client
        .db('berth_local_infra')
        .collection('things')
        .insertOne({ _id: 'a' as never, n: 1 });
      await client.close();
      await db.restart();
      client = await MongoClient.connect(db.url);
      const found = await client
        .db('berth_local_infra')
        .collection('things')
        .findOne({ _id: 'a' as never });
      expect(found?.n).toBe(1);
      await client.close();
    } finally {
      await db.stop();
    }
  });

  it.each([
    ['with the _id lookup index (the default)', undefined, /SEARCH .* USING INDEX .*__berth_id_lookup/],
    ['without it', 0, /SCAN /],
  ])('answers a find by _id on FerretDB %s as SQLite plans it', async (_what, idIndexIntervalMs, plan) => {
    const db = await startFerretDb({ binDir, idIndexIntervalMs });
    const client = await MongoClient.connect(db.url);
    try {
      const things = client.db('berth_id_index').collection<{ _id: string; n: number }>('things');
      await things.insertMany(Array.from({ length: 50 }, (_, n) => ({ _id: `thing:${n}`, n })));
      db.indexIdLookups();
      // SQLite plans an EXPLAIN with the schema its connection last read; a real statement makes it read the new one.
      expect(await things.findOne({ _id: 'thing:7' })).toEqual({ _id: 'thing:7', n: 7 });
      const explained = (await things.find({ _id: 'thing:7' }).explain()) as { queryPlanner?: { Plan?: string[] } };
      expect(explained.queryPlanner?.Plan?.join('\n')).toMatch(plan);
      await expect(things.insertOne({ _id: 'thing:7', n: 0 })).rejects.toMatchObject({ code: 11000 });
    } finally {
      await client.close();
      await db.stop();
    }
  });

  it('indexes the tables of an earlier run before FerretDB starts again, and tables created while it runs', async () => {
    const db = await startFerretDb({ binDir, idIndexIntervalMs: 50 });
    let client = await MongoClient.connect(db.url);
    try {
      await client
        .db('berth_id_index_a')
        .collection('early')
        .insertOne({ _id: 'a' as never });
      await client.close();
      await db.restart();
      expect(db.indexIdLookups()).toEqual([]);
      client = await MongoClient.connect(db.url);
      const late = client.db('berth_id_index_b').collection('late');
      await late.insertOne({ _id: 'b' as never });
      const deadline = Date.now() + 5000;
      let plan = '';
      while (Date.now() < deadline && !plan.includes('USING INDEX')) {
        await late.findOne({ _id: 'b' as never });
        plan =
          (
            (await late.find({ _id: 'b' as never }).explain()) as { queryPlanner?: { Plan?: string[] } }
          ).queryPlanner?.Plan?.join('\n') ?? '';
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(plan).toMatch(/USING INDEX .*__berth_id_lookup/);
    } finally {
      await client.close();
      await db.stop();
    }
  });
});
