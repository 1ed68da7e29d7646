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

  it.each([[undefined, 1], [2, 2]])('runs nats-server with maxProcs %p as %p Go scheduler thread(s), as its /varz reports', async (maxProcs, expected) => {
    const server = await startNatsServer({ binDir, monitoring: true, maxProcs });
    try {
      const varz = (await (await fetch(`${server.monitoringUrl}/varz`)).json()) as { gomaxprocs?: number };
      expect(varz.gomaxprocs).toBe(expected);
    } finally {
      await server.stop();
    }
  });

  it('refuses a maxProcs that is not a positive integer', async () => {
    await expect(startNatsServer({ binDir, maxProcs: 0 })).rejects.toThrow(/maxProcs must be a positive integer/);
  });

  it('starts FerretDB on SQLite and keeps data across a restart', async () => {
    const db = await startFerretDb({ binDir });
    try {
      let client = await MongoClient.connect(db.url);
      await client.db('berth_local_infra').collection('things').insertOne({ _id: 'a' as never, n: 1 });
      await client.close();
      await db.restart();
      client = await MongoClient.connect(db.url);
      const found = await client.db('berth_local_infra').collection('things').findOne({ _id: 'a' as never });
      expect(found?.n).toBe(1);
      await client.close();
    } finally {
      await db.stop();
    }
  });
});
