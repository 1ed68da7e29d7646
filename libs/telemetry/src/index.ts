export { startTelemetry } from './start-telemetry';
export type { Telemetry, TelemetryOptions } from './start-telemetry';
