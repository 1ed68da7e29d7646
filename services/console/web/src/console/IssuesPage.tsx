import { useState } from 'react';
import { api, query } from '../api';
import { Badge } from '../components/Badge';
import { dateTime, relative } from '../components/format';
import { useData } from '../components/useData';
import { canAct, type PageProps } from './ConsoleApp';
import { ErrorAlert } from '../components/ErrorAlert';

interface Issue {
  id: string;
  source: 'webhooks' | 'jobs' | 'outbound';
  scope: string;
  errorClass: string;
  shape: string;
  sample: string;
  count: number;
  firstSeen: string;
  lastSeen: string;
  examples: string[];
  states: Record<string, number>;
  action: { action: string; label: string; params: Record<string, unknown> };
}

/** Issues: open failures grouped by cause (error class and message shape, per provider, queue or endpoint), each with a bulk action. */
export function IssuesPage({ me, act }: PageProps) {
  const [days, setDays] = useState(7);
  const { data, error, reload } = useData(
    () => api<{ issues: Issue[] }>('berth-console-token', `/api/issues${query({ days })}`),
    [days],
  );
  return (
    <section aria-labelledby="issues-title">
      <div className="page-head">
        <h1 id="issues-title">Issues</h1>
        <div>
          <label htmlFor="i-days">Outbound failures of the last</label>{' '}
          <select id="i-days" value={days} onChange={(event) => setDays(Number(event.target.value))}>
            <option value={1}>day</option>
            <option value={7}>7 days</option>
            <option value={30}>30 days</option>
          </select>
        </div>
      </div>
      <p className="hint">
        Unprocessed webhook events with an error, dead-lettered jobs and failed outbound deliveries, grouped by the same
        error class and message shape in the same provider, queue or endpoint.
      </p>
      <ErrorAlert error={error} />
      {data?.issues.length === 0 && <p>No open failures.</p>}
      <ol className="issues">
        {data?.issues.map((issue) => (
          <li key={issue.id} className="issue">
            <h2>
              <span className="source">{issue.source}</span> {issue.scope}: <code>{issue.errorClass}</code>
            </h2>
            <p className="shape">
              <code>{issue.shape}</code>
            </p>
            <p>
              <strong>{issue.count}</strong> {issue.count === 1 ? 'occurrence' : 'occurrences'} · first{' '}
              {relative(issue.firstSeen)} ({dateTime(issue.firstSeen)}) · last {relative(issue.lastSeen)} ·{' '}
              {Object.entries(issue.states).map(([state, count]) => (
                <span key={state}>
                  <Badge value={state} /> {count}{' '}
                </span>
              ))}
            </p>
            <details>
              <summary>Sample and examples</summary>
              <pre className="json small">{issue.sample}</pre>
              <p>{issue.examples.join(', ')}</p>
            </details>
            {canAct(me) && (
              <button
                type="button"
                onClick={() =>
                  act({ action: issue.action.action, params: issue.action.params, label: issue.action.label }, reload)
                }
              >
                {issue.action.label}…
              </button>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
