import type { ClaimResult, DeduplicationClaim, DeduplicationRegistry } from '../deduplication-registry';

/** Deduplication ids held in memory, for the sync driver: an id is held while its job runs in this process. */
export class MemoryDeduplicationRegistry implements DeduplicationRegistry {
  private readonly held = new Map<string, string>();
  private revision = 0;

  async claim(queue: string, deduplicationId: string, jobId: string): Promise<ClaimResult> {
    const key = `${queue}\u0000${deduplicationId}`;
    const existingJobId = this.held.get(key);
    if (existingJobId !== undefined) return { claimed: false, existingJobId };
    this.held.set(key, jobId);
    this.revision += 1;
    return { claimed: true, claim: { queue, deduplicationId, jobId, revision: this.revision } };
  }

  async confirm(): Promise<void> {}

  async abandon(claim: DeduplicationClaim): Promise<void> {
    await this.release(claim.queue, claim.deduplicationId, claim.jobId);
  }

  async relocate(): Promise<void> {}

  async release(queue: string, deduplicationId: string, jobId: string): Promise<void> {
    const key = `${queue}\u0000${deduplicationId}`;
    if (this.held.get(key) === jobId) this.held.delete(key);
  }
}
