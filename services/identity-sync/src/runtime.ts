import type { Clock } from '@berth/contract';
import type { BerthLogger } from '@berth/logger';
import type { IdentityCollections } from './collections';

/** Everything identity-sync's handlers use, built once by `createIdentitySyncApp` and injected into Nest. */
export interface IdentitySyncRuntime {
  collections: IdentityCollections;
  logger: BerthLogger;
  clock: Clock;
  /** This replica's id: the owner of its inbox claims. */
  owner: string;
}

/** The Nest injection token of the {@link IdentitySyncRuntime}. */
export const IDENTITY_SYNC_RUNTIME = Symbol('IDENTITY_SYNC_RUNTIME');
