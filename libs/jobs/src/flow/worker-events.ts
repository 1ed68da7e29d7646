import { EventEmitter } from 'node:events';

/** Which job an event is about. */
export interface WorkerJobRef {
  queue: string;
  name: string;
  jobId: string;
  attempt: number;
}

/**
 * What a worker reports as each job goes through its gates and its attempt (graphile-worker's `WorkerEventMap`
 * style), from both drivers: tests wait on these instead of sleeping, and metrics can listen.
 */
export interface WorkerEventMap {
  /** An attempt starts (every gate admitted the job). */
  'job:start': [WorkerJobRef];
  /** An attempt succeeded. */
  'job:complete': [WorkerJobRef & { durationMs: number }];
  /** An attempt failed (a retry or the dead letters follow). */
  'job:error': [WorkerJobRef & { durationMs: number; error: unknown }];
  /** The job was dropped without running (cancelled, superseded, its singleton key held) or stopped by a cancel. */
  'job:dropped': [WorkerJobRef & { gate: string; reason: string }];
  /** A gate set the job aside to come back later: parked for a key slot, or delayed by a rate limit. */
  'job:deferred': [WorkerJobRef & { gate: string; outcome: 'park' | 'delay' }];
}

/** A typed emitter of {@link WorkerEventMap}. */
export type WorkerEvents = EventEmitter<WorkerEventMap>;

/** A new emitter for worker events. */
export function createWorkerEvents(): WorkerEvents {
  return new EventEmitter<WorkerEventMap>();
}
