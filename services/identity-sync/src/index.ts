export { createIdentitySyncApp, IDENTITY_SYNC_CONSUMER } from './app';
export type { IdentitySyncAppOptions } from './app';
export { loadConfig, identitySyncEnvSchema } from './config';
export type { IdentitySyncConfig } from './config';
export { identityCollections } from './collections';
export type {
  ClerkSyncedFields,
  IdentityCollections,
  UserDocument,
  WorkspaceDocument,
  WorkspaceMemberDocument,
} from './collections';
export { ensureIdentitySyncIndexes } from './indexes';
export { applyClerkChange } from './apply/apply-clerk-change';
export { softDelete } from './apply/soft-delete';
export type { SoftDeleteResult } from './apply/soft-delete';
export { DEFAULT_HEALTH_PORT } from './config';
