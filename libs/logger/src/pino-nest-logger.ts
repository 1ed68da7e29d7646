import type { LoggerService } from '@nestjs/common';
import type { BerthLogger } from './create-logger';

/** Sends Nest's own log lines (start-up, module wiring) to the service's pino logger. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: BerthLogger) {}

  log(message: unknown, context?: string): void {
    this.logger.debug({ nestContext: context }, String(message));
  }

  error(message: unknown, trace?: string, context?: string): void {
    this.logger.error({ nestContext: context, trace }, String(message));
  }

  warn(message: unknown, context?: string): void {
    this.logger.warn({ nestContext: context }, String(message));
  }

  debug(message: unknown, context?: string): void {
    this.logger.debug({ nestContext: context }, String(message));
  }

  verbose(message: unknown, context?: string): void {
    this.logger.trace({ nestContext: context }, String(message));
  }
}
