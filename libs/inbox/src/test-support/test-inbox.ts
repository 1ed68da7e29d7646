import { MongoClient, type Db } from 'mongodb';
import { defaultToolsBinDir, startFerretDb, type FerretDbHandle } from '@berth/local-infra';
import { ensureInboxIndexes, inboxCollections, type Inbox } from '../index';

/** A FerretDB of a test file's own, with the inbox collections and their indexes in a fresh database. */
export interface TestInbox {
  readonly client: MongoClient;
  readonly db: Db;
  readonly inbox: Inbox;
  /** Closes the client and stops FerretDB. */
  stop(): Promise<void>;
}

/** Starts FerretDB on a free port (binaries from `BERTH_TOOLS_DIR` or the default cache) and prepares the inbox. */
export async function startTestInbox(databasePrefix: string): Promise<TestInbox> {
  const ferret: FerretDbHandle = await startFerretDb({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  try {
    const client = await MongoClient.connect(ferret.url, { maxPoolSize: 32 });
    const db = client.db(`${databasePrefix}_${process.pid}`);
    const inbox = inboxCollections(db);
    await ensureInboxIndexes({ inbox });
    return {
      client,
      db,
      inbox,
      async stop() {
        await client.close();
        await ferret.stop();
      },
    };
  } catch (error) {
    await ferret.stop();
    throw error;
  }
}
