import { Inject, Injectable } from '@nestjs/common';
import type { Db } from 'mongodb';
import { InjectMessageQueue, MessageQueueService } from '@berth/jobs';
import type { Clock } from '@berth/contract';
import { CLOCK, MONGO_DB } from '../database/database.tokens';
import { clientsCollections, type ClientsCollections } from './clients.collections';
import { isoWeek } from './iso-week';
import { SendClientSummaryJob, type SendClientSummaryJobData } from './jobs/send-client-summary.job';

/** Adds at most this many jobs at once while walking the workspaces. */
const QUEUE_CHUNK = 200;

/**
 * Queues summary jobs. Kept apart from {@link ClientSummaryService}: the job depends on that service, so the
 * service can't also import the job (a circular import).
 */
@Injectable()
export class ClientSummaryRequests {
  private readonly collections: ClientsCollections;

  constructor(
    @InjectMessageQueue('client-queue')
    private readonly clientQueue: MessageQueueService,
    @Inject(MONGO_DB) db: Db,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.collections = clientsCollections(db);
  }

  /** Queues this week's summary of one workspace (once, however many times it is asked while it waits). */
  async requestSummary(workspaceId: string): Promise<void> {
    await this.clientQueue.add<SendClientSummaryJobData>(
      SendClientSummaryJob.name,
      { workspaceId },
      { deduplicationId: `${workspaceId}:${isoWeek(this.clock.now())}` },
    );
  }

  /** Queues one summary job per live workspace; returns how many were asked for. */
  async queueSummaryForEveryWorkspace(): Promise<number> {
    let count = 0;
    let chunk: string[] = [];
    const flush = async (): Promise<void> => {
      await Promise.all(chunk.map((workspaceId) => this.requestSummary(workspaceId)));
      count += chunk.length;
      chunk = [];
    };
    for await (const workspace of this.collections.workspaces.find({ deletedAt: null }, { projection: { _id: 1 } })) {
      chunk.push(workspace._id);
      if (chunk.length === QUEUE_CHUNK) await flush();
    }
    await flush();
    return count;
  }
}
