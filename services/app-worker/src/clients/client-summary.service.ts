import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { Db } from 'mongodb';
import { isDuplicateKeyError } from '@berth/store';
import type { Clock } from '@berth/contract';
import { CLOCK, MONGO_DB } from '../database/database.tokens';
import { clientsCollections, type ClientsCollections } from './clients.collections';
import { isoWeek } from './iso-week';

/** What one summary run did. */
export type SummaryOutcome = 'written' | 'already-written' | 'no-workspace';

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Writes the weekly client summary of a workspace into `clientSummaries`: one document per workspace and ISO
 * week, inserted if absent, so running it twice (a retry, two workers) changes nothing.
 */
@Injectable()
export class ClientSummaryService implements OnModuleInit {
  private readonly collections: ClientsCollections;

  constructor(
    @Inject(MONGO_DB) db: Db,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.collections = clientsCollections(db);
  }

  async onModuleInit(): Promise<void> {
    await this.collections.summaries.createIndex(
      { workspaceId: 1, week: 1 },
      { unique: true, name: 'workspace_week_unique' },
    );
  }

  /** Summarizes this week's clients of one workspace, reading them fresh. */
  async sendSummary(workspaceId: string): Promise<SummaryOutcome> {
    const now = this.clock.now();
    const week = isoWeek(now);
    const workspace = await this.collections.workspaces.findOne({ _id: workspaceId, deletedAt: null });
    if (!workspace) return 'no-workspace';
    const live = { workspaceId, deletedAt: null };
    const [clientCount, newClientCount] = await Promise.all([
      this.collections.clients.countDocuments(live),
      this.collections.clients.countDocuments({ ...live, createdAt: { $gte: new Date(now.getTime() - WEEK_MS) } }),
    ]);
    try {
      await this.collections.summaries.insertOne({
        _id: `${workspaceId}:${week}`,
        workspaceId,
        week,
        clientCount,
        newClientCount,
        createdAt: now,
      });
      return 'written';
    } catch (error) {
      if (isDuplicateKeyError(error)) return 'already-written';
      throw error;
    }
  }
}
