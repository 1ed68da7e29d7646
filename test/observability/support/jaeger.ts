/**
 * A real Jaeger (v1.76 all-in-one: the OpenTelemetry-collector-based `cmd/jaeger`, built from the Go module proxy by
 * deploy/local/install-jaeger.sh) for tests: in-memory storage, an OTLP/HTTP receiver and the query API on free
 * loopback ports, a temporary config folder, stopped by {@link JaegerHandle.stop}.
 */
import { waitFor } from '@berth/local-infra/testing';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { getFreePort, spawnManaged, type ManagedProcess } from '@berth/local-infra';
import { repoRoot } from '../../support/service-process';

/**
 * Builds Jaeger unless it is cached (minutes the first time on a machine, see the script) and returns its path.
 * The script prints the tools' bin folder on its last line.
 */
export async function installJaeger(timeoutMs: number): Promise<string> {
  const { stdout } = await promisify(execFile)('bash', [join(repoRoot, 'deploy', 'local', 'install-jaeger.sh')], {
    cwd: repoRoot,
    timeout: timeoutMs,
    maxBuffer: 16 * 1024 * 1024,
  });
  const binDir = stdout.trim().split('\n').pop()!;
  return join(binDir, 'jaeger');
}

/** A running Jaeger. */
export interface JaegerHandle {
  /** What services set as `OTEL_EXPORTER_OTLP_ENDPOINT` (they post to `<it>/v1/traces`). */
  readonly otlpEndpoint: string;
  /** Base URL of the query API (`/api/traces`, `/api/services`) and the UI. */
  readonly queryUrl: string;
  readonly process: ManagedProcess;
  /** One trace by id, or undefined while Jaeger has none of its spans. */
  trace(traceId: string): Promise<JaegerTrace | undefined>;
  /** Traces holding spans of `service`, most recent first, as the UI's search lists them. */
  findTraces(service: string, limit?: number): Promise<JaegerTrace[]>;
  stop(): Promise<void>;
}

/** A trace as the query API returns it (`/api/traces/<id>`). */
export interface JaegerTrace {
  traceID: string;
  spans: JaegerSpan[];
  processes: Record<string, { serviceName: string; tags?: JaegerTag[] }>;
}

/** One span of a {@link JaegerTrace}. */
export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: { refType: 'CHILD_OF' | 'FOLLOWS_FROM'; traceID: string; spanID: string }[];
  startTime: number;
  duration: number;
  tags: JaegerTag[];
  processID: string;
}

export interface JaegerTag {
  key: string;
  type: string;
  value: unknown;
}

/**
 * Jaeger's configuration: the all-in-one's pipeline (OTLP in, in-memory storage, query API), with every listener on
 * a given loopback port, and nothing else listening (no Jaeger/Zipkin receivers, sampling server, zpages, or the
 * collector's own metrics on :8888), so that several tests can run Jaegers side by side.
 */
function jaegerConfig(ports: {
  otlpHttp: number;
  queryHttp: number;
  queryGrpc: number;
  healthHttp: number;
  healthGrpc: number;
}): string {
  return `service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: info

extensions:
  healthcheckv2:
    use_v2: true
    http:
      endpoint: 127.0.0.1:${ports.healthHttp}
    grpc:
      endpoint: 127.0.0.1:${ports.healthGrpc}
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:${ports.queryHttp}
    grpc:
      endpoint: 127.0.0.1:${ports.queryGrpc}
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000

receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${ports.otlpHttp}

processors:
  batch:
    timeout: 100ms

exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`;
}

/** Starts Jaeger and resolves once its health endpoint says every component is up and the query API answers. */
export async function startJaeger(options: {
  binary: string;
  logFile?: string;
  readyTimeoutMs?: number;
}): Promise<JaegerHandle> {
  const configDir = await mkdtemp(join(tmpdir(), 'berth-jaeger-'));
  const ports = {
    otlpHttp: await getFreePort(),
    queryHttp: await getFreePort(),
    queryGrpc: await getFreePort(),
    healthHttp: await getFreePort(),
    healthGrpc: await getFreePort(),
  };
  const configFile = join(configDir, 'jaeger.yaml');
  await writeFile(configFile, jaegerConfig(ports));
  const proc = spawnManaged({
    command: options.binary,
    args: ['--config', configFile],
    logFile: options.logFile,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
  });
  const stop = async (): Promise<void> => {
    await proc.stop(5000);
    await rm(configDir, { recursive: true, force: true });
  };
  const queryUrl = `http://127.0.0.1:${ports.queryHttp}`;
  try {
    const exitedEarly = proc.exited.then(({ code, signal }) => {
      throw new Error(
        `jaeger exited before it was ready (code ${code}, signal ${signal}); see ${options.logFile ?? 'its output'}`,
      );
    });
    await Promise.race([
      exitedEarly,
      waitFor(
        async () =>
          (await fetch(`http://127.0.0.1:${ports.healthHttp}/status`)).status === 200 &&
          (await fetch(`${queryUrl}/api/services`)).ok,
        {
          what: 'Jaeger to report healthy',
          timeoutMs: options.readyTimeoutMs ?? 30_000,
          intervalMs: 100,
          until: (ready) => ready,
        },
      ),
    ]);
    exitedEarly.catch(() => undefined);
  } catch (error) {
    await stop();
    throw error;
  }

  const getJson = async <T>(path: string): Promise<T | undefined> => {
    const response = await fetch(`${queryUrl}${path}`);
    if (response.status === 404) return undefined;
    if (!response.ok) throw new Error(`Jaeger ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  return {
    otlpEndpoint: `http://127.0.0.1:${ports.otlpHttp}`,
    queryUrl,
    process: proc,
    async trace(traceId) {
      const body = await getJson<{ data: JaegerTrace[] }>(`/api/traces/${traceId}`);
      return body?.data?.[0];
    },
    async findTraces(service, limit = 20) {
      const body = await getJson<{ data: JaegerTrace[] | null }>(
        `/api/traces?service=${encodeURIComponent(service)}&limit=${limit}&lookback=1h`,
      );
      return body?.data ?? [];
    },
    stop,
  };
}

/** The value of a span tag, or undefined. */
export function tagOf(span: JaegerSpan, key: string): unknown {
  return span.tags.find((tag) => tag.key === key)?.value;
}

/** The service that wrote a span. */
export function serviceOf(trace: JaegerTrace, span: JaegerSpan): string {
  return trace.processes[span.processID]?.serviceName ?? '?';
}

/** The span's parent in `trace` (its CHILD_OF reference), or undefined for a root. */
export function parentOf(trace: JaegerTrace, span: JaegerSpan): JaegerSpan | undefined {
  const reference = span.references.find((candidate) => candidate.refType === 'CHILD_OF');
  return reference ? trace.spans.find((candidate) => candidate.spanID === reference.spanID) : undefined;
}

/** The chain from the span up to its root: [span, parent, grandparent, …]. */
export function ancestry(trace: JaegerTrace, span: JaegerSpan): JaegerSpan[] {
  const chain = [span];
  for (let parent = parentOf(trace, span); parent && chain.length < 100; parent = parentOf(trace, parent))
    chain.push(parent);
  return chain;
}
