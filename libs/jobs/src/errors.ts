import { UnrecoverableError } from '@berth/messaging';

/** A job message names a job no `@Process` method of this worker runs; it goes to the dead letters at once. */
export class UnknownJobError extends UnrecoverableError {
  constructor(queue: string, name: string) {
    super(`No @Process(${JSON.stringify(name)}) on queue ${queue} among this worker's providers`);
    this.name = 'UnknownJobError';
  }
}
