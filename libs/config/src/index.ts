export { parseEnv, ConfigError } from './parse-env';
export {
  commonEnvSchema,
  commaList,
  booleanFlag,
  databaseFromMongoUrl,
  mongoDatabaseName,
  DEFAULT_MONGO_DB,
} from './common';
export type { CommonEnv } from './common';
export {
  positiveInt,
  portNumber,
  streamReplicas,
  healthEnvFields,
  lifecycleEnvFields,
  webhookConsumerEnvFields,
} from './service-env';
export { commonConfig, mongoConfig, healthConfig, lifecycleConfig, webhookConsumerConfig } from './service-config';
export type { CommonConfig, MongoConfig, HealthConfig, LifecycleConfig, WebhookConsumerConfig } from './service-config';
export {
  LOCAL_MESH_FILE,
  localMeshSchema,
  writeLocalMesh,
  readLocalMesh,
  parseHealthTargets,
  healthTargetSchema,
} from './local-mesh';
export type { LocalMesh, HealthTarget } from './local-mesh';
