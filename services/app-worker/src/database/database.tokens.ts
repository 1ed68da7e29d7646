/** Injection token of the MongoDB `Db`. */
export const MONGO_DB = 'BerthMongoDb';

/** Injection token of the clock. */
export const CLOCK = 'BerthClock';

/** The current time (`@berth/contract`'s `Clock`); injected so tests can fix it. */
export { systemClock, type Clock } from '@berth/contract';

/** MongoDB's duplicate key error (E11000), from MongoDB and FerretDB alike. */
export function isDuplicateKeyError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}
