import { MongoClient } from 'mongodb';
import { defaultToolsBinDir, startFerretDb, type FerretDbHandle } from '@berth/local-infra';

/** A FerretDB of a test file's own and a client connected to it. */
export interface TestMongo {
  /** The server itself, for tests that kill or restart it. */
  readonly ferret: FerretDbHandle;
  readonly client: MongoClient;
  /** Closes the client and stops FerretDB. */
  stop(): Promise<void>;
}

/** Starts FerretDB on a free port (binaries from `BERTH_TOOLS_DIR` or the default cache) and connects to it. */
export async function startTestMongo(options: { maxPoolSize?: number } = {}): Promise<TestMongo> {
  const ferret = await startFerretDb({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  try {
    const client = await MongoClient.connect(ferret.url, options);
    return {
      ferret,
      client,
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
