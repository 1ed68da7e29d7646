/** Injection token of the MongoDB `Db`. */
export const MONGO_DB = 'BerthMongoDb';

/** Injection token of the clock (`@berth/contract`'s `Clock`): injected so tests can fix or move time. */
export const CLOCK = 'BerthClock';
