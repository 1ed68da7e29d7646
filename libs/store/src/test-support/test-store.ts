import { MongoClient, type Db } from 'mongodb';
import { defaultToolsBinDir, startFerretDb, type FerretDbHandle } from '@berth/local-infra';

/** A store for one test file: the embedded one, with a fresh database per test through {@link TestStore.db}. */
export interface TestStore {
  client: MongoClient;
  /** A database of its own, named after the file's `prefix` and a counter. */
  db(): Db;
  stop(): Promise<void>;
}

/** Starts the embedded store (FerretDB from the tools cache) for a test file. */
export async function startTestStore(prefix: string): Promise<TestStore> {
  const ferret: FerretDbHandle = await startFerretDb({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  const client = await MongoClient.connect(ferret.url, { maxPoolSize: 32 });
  let counter = 0;
  return {
    client,
    db: () => client.db(`${prefix}_${process.pid}_${++counter}`),
    stop: async () => {
      await client.close();
      await ferret.stop();
    },
  };
}
