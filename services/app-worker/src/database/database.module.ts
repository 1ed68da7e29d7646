import { Module, type DynamicModule } from '@nestjs/common';
import type { Db } from 'mongodb';
import { systemClock, type Clock } from '@berth/contract';
import { CLOCK, MONGO_DB } from './database.tokens';

/** Provides the MongoDB database (`@Inject(MONGO_DB)`) and the clock (`@Inject(CLOCK)`) to every module. */
@Module({})
export class DatabaseModule {
  /** The service opens the connection (and closes it at shutdown); tests pass theirs and a fixed clock. */
  static register(db: Db, clock: Clock = systemClock): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      providers: [
        { provide: MONGO_DB, useValue: db },
        { provide: CLOCK, useValue: clock },
      ],
      exports: [MONGO_DB, CLOCK],
    };
  }
}
