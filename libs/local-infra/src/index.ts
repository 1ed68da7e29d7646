export { getFreePort } from './free-port';
export { spawnManaged } from './managed-process';
export type { ManagedProcess, SpawnOptions } from './managed-process';
export { startNatsServer, natsServerConfig } from './nats-server';
export type { NatsServerHandle, NatsServerOptions, NatsClusterConfig } from './nats-server';
export { startFerretDb, DOCUMENTDB_VERSION } from './ferretdb';
export type { FerretDbHandle, FerretDbOptions } from './ferretdb';
export { startPostgresCluster, newStorePassword, STORE_USER, DEFAULT_POSTGRES_BIN_DIR } from './postgres-cluster';
export type { PostgresCluster, PostgresClusterOptions } from './postgres-cluster';
export { defaultToolsBinDir } from './tools';
export { startNatsCluster } from './nats-cluster';
export type {
  NatsClusterHandle,
  NatsClusterNode,
  NatsClusterOptions,
  JetStreamClusterState,
  StreamClusterState,
} from './nats-cluster';
