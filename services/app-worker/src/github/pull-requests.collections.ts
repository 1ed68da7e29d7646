import type { Collection, Db } from 'mongodb';

/**
 * A pull request someone opened or reopened on a connected GitHub repository (collection `pullRequests`): `_id` is
 * `<repository full name>#<number>`, so handling the same delivery twice writes the same document.
 */
export interface PullRequestDocument {
  _id: string;
  repository: string;
  number: number;
  title: string;
  author: string | null;
  /** `opened` or `reopened`: the action of the last delivery applied. */
  lastAction: string;
  /** The `X-GitHub-Delivery` id of the last delivery applied. */
  lastDeliveryId: string;
  updatedAt: Date;
}

/** The collection of {@link PullRequestDocument}s. */
export function pullRequestsCollection(db: Db): Collection<PullRequestDocument> {
  return db.collection<PullRequestDocument>('pullRequests');
}
