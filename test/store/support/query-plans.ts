/**
 * What the explain tests of test/store share: the filters a monitored client sent, how the store plans each, and
 * the assertion that a plan uses an index (on the embedded store PostgreSQL's plan, which FerretDB's `explain`
 * returns, scans an index and never the table; MongoDB's winning plan is an index scan, never a COLLSCAN).
 */
import type { CommandStartedEvent, Db, Document, MongoClient } from 'mongodb';

const QUERY_COMMANDS = ['find', 'update', 'delete', 'findAndModify', 'count', 'aggregate'];

/** One query a command carried: its collection, its filter and the command's name. */
export interface SentQuery {
  collection: string;
  filter: Document;
  command: string;
}

/** Records every query command `client` sends to `db` (the client must be connected with `monitorCommands: true`). */
export function monitorQueries(client: MongoClient, db: Db): CommandStartedEvent[] {
  const commands: CommandStartedEvent[] = [];
  client.on('commandStarted', (event) => {
    if (QUERY_COMMANDS.includes(event.commandName) && event.databaseName === db.databaseName) commands.push(event);
  });
  return commands;
}

/** The collection and filter of each query a monitored command carried (every statement of an update or delete). */
export function queriesOf(event: CommandStartedEvent): SentQuery[] {
  const command = event.command;
  const collection = String(command[event.commandName]);
  switch (event.commandName) {
    case 'find':
    case 'count':
      return [{ collection, filter: (command.filter ?? command.query ?? {}) as Document, command: event.commandName }];
    case 'findAndModify':
      return [{ collection, filter: (command.query ?? {}) as Document, command: event.commandName }];
    case 'update':
      return (command.updates as { q: Document }[]).map((statement) => ({
        collection,
        filter: statement.q,
        command: 'update',
      }));
    case 'delete':
      return (command.deletes as { q: Document }[]).map((statement) => ({
        collection,
        filter: statement.q,
        command: 'delete',
      }));
    default:
      return [{ collection, filter: { $aggregate: command.pipeline }, command: event.commandName }];
  }
}

/**
 * How the store plans `filter` on `collection`: PostgreSQL's plan tree (JSON) on the embedded store, the winning
 * plan's stages on MongoDB.
 */
export async function planOf(db: Db, onMongo: boolean, collection: string, filter: Document): Promise<string> {
  const explained = (await db.collection(collection).find(filter).explain('queryPlanner')) as Document;
  if (!onMongo) return JSON.stringify((explained.queryPlanner as { Plan?: unknown } | undefined)?.Plan ?? explained);
  return JSON.stringify(explained.queryPlanner?.winningPlan ?? explained);
}

/** Fails unless `planText` uses an index on the store it came from. */
export function expectIndexed(onMongo: boolean, what: string, planText: string): void {
  if (onMongo) {
    expect({
      what,
      usesIndex: /"stage":"(IXSCAN|IDHACK|EXPRESS_IXSCAN|EXPRESS_CLUSTERED_IXSCAN)"/.test(planText),
      plan: planText,
    }).toMatchObject({ what, usesIndex: true });
    expect({ what, plan: planText }).not.toMatchObject({ plan: expect.stringContaining('COLLSCAN') });
  } else {
    expect({ what, plan: planText }).toMatchObject({
      plan: expect.stringMatching(/"Node Type":"(Index Scan|Index Only Scan|Bitmap Index Scan)"/),
    });
    expect({ what, plan: planText }).not.toMatchObject({ plan: expect.stringContaining('"Node Type":"Seq Scan"') });
  }
}

/** Explains every query of `queries` and fails on the first that does not use an index. */
export async function expectQueriesIndexed(db: Db, onMongo: boolean, queries: readonly SentQuery[]): Promise<void> {
  for (const query of queries)
    expectIndexed(
      onMongo,
      `${query.command} ${query.collection} ${JSON.stringify(query.filter)}`,
      await planOf(db, onMongo, query.collection, query.filter),
    );
}
