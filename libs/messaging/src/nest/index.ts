/**
 * `@berth/messaging/nest`: the NestJS microservice transport over JetStream. Its own entry point so that importing
 * `@berth/messaging` (as the Koa gateway does) never loads `@nestjs/*` or rxjs.
 */
export { JetStreamTransport } from './jetstream-transport';
export type { JetStreamTransportOptions, TransportConsumerOptions } from './jetstream-transport';
export { JetStreamContext } from './jetstream-context';
export { RethrowErrorsFilter } from './rethrow-errors.filter';
