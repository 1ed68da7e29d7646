import { MongoClient, type Db } from 'mongodb';
import { defaultToolsBinDir, startFerretDb, type FerretDbHandle } from '@berth/local-infra';
import { ensureInboxIndexes, inboxCollections, type Inbox, type WebhookEvent } from '../index';

/** An embedded store of a test file's own, with the inbox collections and their indexes in a fresh database. */
export interface TestInbox {
  readonly client: MongoClient;
  readonly db: Db;
  readonly inbox: Inbox;
  /** Closes the client and stops the store. */
  stop(): Promise<void>;
}

/** Starts the embedded store on free ports (binaries from `BERTH_TOOLS_DIR` or the default cache) and prepares the inbox. */
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

/**
 * A maker of fresh Stripe `customer.updated` events for a test file: event ids `<eventIdPrefix>1`, `…2`, and so on,
 * all received at 2030-01-01 with `payload`.
 */
export function testWebhookEvents(eventIdPrefix: string, payload = '{}'): () => WebhookEvent {
  let counter = 0;
  return () => {
    counter += 1;
    return {
      provider: 'stripe',
      eventId: `${eventIdPrefix}${counter}`,
      type: 'customer.updated',
      receivedAt: new Date('2030-01-01T00:00:00Z'),
      payload,
    };
  };
}
