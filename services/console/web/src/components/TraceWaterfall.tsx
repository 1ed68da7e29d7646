import { api, ApiError } from '../api';
import { useData } from './useData';
import { ErrorAlert } from './ErrorAlert';
import type { TraceView } from '../../../src/api/contract';

/** Milliseconds as the waterfall prints them: `0.42 ms`, `12 ms`, `1.30 s`. */
function duration(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  return ms >= 10 ? `${Math.round(ms)} ms` : `${ms.toFixed(2)} ms`;
}

/**
 * One trace as a waterfall, read from the trace store through the console API: each span's service and operation
 * (indented under its parent), a bar from its start to its end on the trace's time line, and its duration. Bars are
 * SVG attributes, not inline styles, which the page's Content-Security-Policy refuses.
 */
export function TraceWaterfall({ traceId }: { traceId: string }) {
  const { data, error, reload } = useData(
    () =>
      api<TraceView>('berth-console-token', `/api/traces/${traceId}`).catch((failure: unknown) => {
        if (failure instanceof ApiError && failure.status === 404) return null;
        throw failure;
      }),
    [traceId],
  );
  if (error) return <ErrorAlert error={error} />;
  if (data === undefined) return <p>Loading the trace…</p>;
  if (data === null)
    return (
      <p>
        The trace store holds no span of this trace yet (spans are exported in batches, every few seconds).{' '}
        <button type="button" onClick={reload}>
          Look again
        </button>
      </p>
    );
  const total = data.durationMs || 1;
  return (
    <table className="waterfall" aria-label={`Trace ${data.traceId}`}>
      <caption>
        {data.spans.length} spans over {duration(data.durationMs)}, from the trace store
      </caption>
      <thead>
        <tr>
          <th scope="col">Service</th>
          <th scope="col">Operation</th>
          <th scope="col" className="waterfall-line">
            Time line
          </th>
          <th scope="col">Duration</th>
        </tr>
      </thead>
      <tbody>
        {data.spans.map((span) => (
          <tr key={span.spanId} className={span.error ? 'span-error' : undefined}>
            <td>{span.service}</td>
            <td>
              <span className={`depth depth-${Math.min(span.depth, 8)}`}>{span.operation}</span>
              {span.error && <span className="error-text"> (error)</span>}
            </td>
            <td className="waterfall-line">
              <svg width="100%" height="12" role="img" aria-label={`starts at ${duration(span.startMs)}`}>
                <rect
                  x={`${(span.startMs / total) * 100}%`}
                  width={`${Math.max((span.durationMs / total) * 100, 0.5)}%`}
                  height="12"
                  className="span-bar"
                />
              </svg>
            </td>
            <td>{duration(span.durationMs)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
