/** Injection token of the MongoDB `Db`. */
export const MONGO_DB = 'BerthMongoDb';

/** Injection token of the clock. */
export const CLOCK = 'BerthClock';

/** The current time (`@berth/contract`'s `Clock`); injected so tests can fix it. */
export { systemClock, type Clock } from '@berth/contract';
