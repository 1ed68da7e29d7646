import type { TraceSpan, TraceView } from '../api/contract';

/** A trace as Jaeger's query API returns it (`GET /api/traces/<id>` → `{ data: [trace] }`), the fields read. */
interface JaegerTrace {
  traceID: string;
  spans: {
    spanID: string;
    operationName: string;
    references?: { refType: string; spanID: string }[];
    /** Microseconds since the epoch. */
    startTime: number;
    /** Microseconds. */
    duration: number;
    tags?: { key: string; value: unknown }[];
    processID: string;
  }[];
  processes: Record<string, { serviceName: string }>;
}

/** A trace id as W3C trace context writes it: 32 lower-case hex digits. */
export const TRACE_ID = /^[0-9a-f]{32}$/;

/**
 * The trace as a waterfall: every span with its service, its start as an offset from the trace's first span, its
 * duration and its depth, in tree order (each span after its parent, siblings by start time). A span whose parent
 * is not in the trace (not exported yet, or sampled out) is shown at the top level.
 */
export function toTraceView(trace: JaegerTrace): TraceView {
  const ids = new Set(trace.spans.map((span) => span.spanID));
  const parentOf = (span: JaegerTrace['spans'][number]): string | null => {
    const parent = span.references?.find((reference) => reference.refType === 'CHILD_OF')?.spanID;
    return parent && ids.has(parent) ? parent : null;
  };
  const start = Math.min(...trace.spans.map((span) => span.startTime));
  const end = Math.max(...trace.spans.map((span) => span.startTime + span.duration));
  const children = new Map<string | null, JaegerTrace['spans']>();
  for (const span of [...trace.spans].sort((a, b) => a.startTime - b.startTime)) {
    const parent = parentOf(span);
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  const spans: TraceSpan[] = [];
  const visit = (parent: string | null, depth: number) => {
    for (const span of children.get(parent) ?? []) {
      spans.push({
        spanId: span.spanID,
        parentSpanId: parentOf(span),
        service: trace.processes[span.processID]?.serviceName ?? 'unknown',
        operation: span.operationName,
        startMs: (span.startTime - start) / 1000,
        durationMs: span.duration / 1000,
        depth,
        error: (span.tags ?? []).some(
          (tag) =>
            (tag.key === 'error' && tag.value === true) || (tag.key === 'otel.status_code' && tag.value === 'ERROR'),
        ),
      });
      visit(span.spanID, depth + 1);
    }
  };
  visit(null, 0);
  return { traceId: trace.traceID, durationMs: trace.spans.length ? (end - start) / 1000 : 0, spans };
}

/** Reads one trace from Jaeger's query API at `baseUrl`; null when Jaeger holds none of its spans. */
export async function readTrace(
  baseUrl: string,
  traceId: string,
  fetchImpl: typeof fetch = fetch,
  timeoutMs = 5000,
): Promise<TraceView | null> {
  const response = await fetchImpl(new URL(`/api/traces/${traceId}`, baseUrl), {
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (response.status === 404) return null;
  if (!response.ok) throw new Error(`Jaeger answered ${response.status} for trace ${traceId}`);
  const body = (await response.json()) as { data?: JaegerTrace[] };
  const trace = body.data?.[0];
  return trace && trace.spans.length > 0 ? toTraceView(trace) : null;
}
