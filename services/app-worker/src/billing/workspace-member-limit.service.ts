import { Inject, Injectable } from '@nestjs/common';
import type { Db } from 'mongodb';
import type { Clock } from '@berth/contract';
import { CLOCK, MONGO_DB } from '../database/database.tokens';
import { billingCollections, type BillingCollections, type WorkspaceMemberDocument } from './billing.collections';
import { seatLimitOf } from './seat-limit';

/** The seat limit the free plan grants (from the worker's config). */
export const FREE_PLAN_SEAT_LIMIT = 'BerthFreePlanSeatLimit';

/** What one run changed. */
export interface MemberLimitOutcome {
  /** Undefined when the workspace has no billing state yet (nothing is changed then). */
  seatLimit?: number;
  suspended: number;
  reactivated: number;
}

/**
 * Keeps a workspace's active members within the seats it pays for: members beyond the limit are suspended
 * (`suspended: true`, reason `seat-limit`), and members this job suspended earlier are reactivated when seats come
 * back. Owners keep their seats first, then the earliest members. It reads the current state and writes only
 * differences, so running it twice changes nothing.
 */
@Injectable()
export class WorkspaceMemberLimitService {
  private readonly collections: BillingCollections;

  constructor(
    @Inject(MONGO_DB) db: Db,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(FREE_PLAN_SEAT_LIMIT) private readonly freePlanSeatLimit: number,
  ) {
    this.collections = billingCollections(db);
  }

  async applyMemberLimit(workspaceId: string): Promise<MemberLimitOutcome> {
    const workspace = await this.collections.workspaces.findOne({ _id: workspaceId });
    if (!workspace?.billing || workspace.deletedAt) return { suspended: 0, reactivated: 0 };
    const seatLimit = seatLimitOf(workspace.billing, this.freePlanSeatLimit);
    const members = await this.collections.members.find({ workspaceId, deletedAt: null }).toArray();
    const ranked = members.sort(bySeatPriority);
    const keep = ranked.slice(0, seatLimit);
    const over = ranked.slice(seatLimit);
    const toReactivate = keep
      .filter((member) => member.suspended === true && member.suspendedReason === 'seat-limit')
      .map((member) => member._id);
    const toSuspend = over.filter((member) => member.suspended !== true).map((member) => member._id);
    if (toSuspend.length > 0) {
      await this.collections.members.updateMany(
        { _id: { $in: toSuspend }, suspended: { $ne: true } },
        { $set: { suspended: true, suspendedReason: 'seat-limit', suspendedAt: this.clock.now() } },
      );
    }
    if (toReactivate.length > 0) {
      await this.collections.members.updateMany(
        { _id: { $in: toReactivate }, suspendedReason: 'seat-limit' },
        { $set: { suspended: false, suspendedReason: null, suspendedAt: null } },
      );
    }
    return { seatLimit, suspended: toSuspend.length, reactivated: toReactivate.length };
  }
}

/** Owners first, then by join date, then by id (a stable order, so runs agree). */
function bySeatPriority(a: WorkspaceMemberDocument, b: WorkspaceMemberDocument): number {
  const owner = Number(b.role === 'owner') - Number(a.role === 'owner');
  if (owner !== 0) return owner;
  const joined = a.joinedAt.getTime() - b.joinedAt.getTime();
  if (joined !== 0) return joined;
  return a._id < b._id ? -1 : a._id > b._id ? 1 : 0;
}
