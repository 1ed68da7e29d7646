import { Module, type DynamicModule } from '@nestjs/common';
import type { BerthLogger } from '@berth/logger';

/** Injection token of the service's pino logger: `@Inject(APP_LOGGER) logger: BerthLogger`. */
export const APP_LOGGER = 'BerthAppLogger';

/** Provides the service's logger to every module; lines written during a job carry the job's fields. */
@Module({})
export class LoggerModule {
  static register(logger: BerthLogger): DynamicModule {
    return {
      module: LoggerModule,
      global: true,
      providers: [{ provide: APP_LOGGER, useValue: logger }],
      exports: [APP_LOGGER],
    };
  }
}
