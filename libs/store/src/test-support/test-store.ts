import { MongoClient, type Db } from 'mongodb';
import { defaultToolsBinDir, startFerretDb, type FerretDbHandle } from '@berth/local-infra';
import type { Clock } from '@berth/contract';

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

/** A clock tests move by hand. */
export function manualClock(start = Date.parse('2026-01-01T00:00:00Z')): { clock: Clock; advance(ms: number): void } {
  let now = start;
  return { clock: () => new Date(now), advance: (ms) => void (now += ms) };
}
