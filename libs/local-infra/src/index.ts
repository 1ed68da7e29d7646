export { getFreePort } from './free-port';
export { spawnManaged } from './managed-process';
export type { ManagedProcess, SpawnOptions } from './managed-process';
export { startNatsServer, natsServerConfig } from './nats-server';
export type { NatsServerHandle, NatsServerOptions } from './nats-server';
export { startFerretDb } from './ferretdb';
export type { FerretDbHandle, FerretDbOptions } from './ferretdb';
export { defaultToolsBinDir } from './tools';
