import { BatchJobError } from '../errors';

/**
 * What became of each job of a batch, by job id: `undefined` completed, else the error it failed with. A handler
 * that resolved completes them all; a {@link BatchJobError} fails only the jobs it lists (ids not in the batch are
 * ignored, a failure without an error gets one); any other error fails every job with that error.
 */
export function batchOutcomes(jobIds: readonly string[], failure?: { error: unknown }): Map<string, unknown> {
  const outcomes = new Map<string, unknown>(jobIds.map((id) => [id, undefined]));
  if (!failure) return outcomes;
  if (failure.error instanceof BatchJobError) {
    for (const { jobId, error } of failure.error.failures)
      if (outcomes.has(jobId)) outcomes.set(jobId, error ?? new Error(`Job ${jobId} failed in its batch`));
    return outcomes;
  }
  for (const id of jobIds) outcomes.set(id, failure.error);
  return outcomes;
}
