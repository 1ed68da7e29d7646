/**
 * One lifecycle for every Berth service process: {@link runService} in `main.ts` (configuration, tracing before the
 * app loads, signals, exit code) around {@link startService} (logger, health and metrics server, connections closed
 * in reverse at a failed start or a stop, ready and stopped log lines), which tests also run in their own process.
 */
export { runService } from './run-service';
export type { RunServiceOptions, StoppableService } from './run-service';
export { startService } from './start-service';
export type { RunningService, ServiceContext, StartedService, StartServiceOptions } from './start-service';
export { OwnedResources } from './owned-resources';
