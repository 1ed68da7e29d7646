import { Inject, Injectable } from '@nestjs/common';
import type { Db } from 'mongodb';
import { UnrecoverableError } from '@berth/webhook-handlers';
import type { Clock } from '@berth/contract';
import { CLOCK, MONGO_DB } from '../database/database.tokens';
import { pullRequestsCollection } from './pull-requests.collections';

/** The part of GitHub's `pull_request` payload this feature reads. */
export interface PullRequestPayload {
  action: string;
  number: number;
  pull_request?: { title?: string; user?: { login?: string } | null };
  repository?: { full_name?: string };
}

/** Keeps `pullRequests` in step with what GitHub tells about opened and reopened pull requests. */
@Injectable()
export class PullRequestActivityService {
  constructor(
    @Inject(MONGO_DB) private readonly db: Db,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Writes the pull request as the delivery describes it. Safe to run twice: one document per pull request, overwritten. */
  async recordOpened(payload: PullRequestPayload, deliveryId: string): Promise<void> {
    const repository = payload.repository?.full_name;
    if (!repository || !Number.isInteger(payload.number))
      throw new UnrecoverableError(`pull_request delivery ${deliveryId} names no repository or number`);
    await pullRequestsCollection(this.db).updateOne(
      { _id: `${repository}#${payload.number}` },
      {
        $set: {
          repository,
          number: payload.number,
          title: payload.pull_request?.title ?? '',
          author: payload.pull_request?.user?.login ?? null,
          lastAction: payload.action,
          lastDeliveryId: deliveryId,
          updatedAt: this.clock.now(),
        },
      },
      { upsert: true },
    );
  }
}
