import { useState } from 'react';
import { api, query } from '../api';
import { Badge } from '../components/Badge';
import { counted } from '../components/format';
import { Time } from '../components/Time';
import { Updated } from '../components/Updated';
import { useData } from '../components/useData';
import { canAct, type PageProps } from './ConsoleApp';
import { ErrorAlert } from '../components/ErrorAlert';
import type { Issue } from '../../../src/api/contract';

/** How often the page refreshes itself. */
const REFRESH_MS = 15_000;

/** The status changes offered from each status. */
const NEXT_STATUSES: Record<Issue['status'], { status: Issue['status']; label: string }[]> = {
  open: [
    { status: 'acknowledged', label: 'Acknowledge' },
    { status: 'resolved', label: 'Resolve' },
  ],
  acknowledged: [
    { status: 'resolved', label: 'Resolve' },
    { status: 'open', label: 'Reopen' },
  ],
  resolved: [{ status: 'open', label: 'Reopen' }],
};

/** Issues: open failures grouped by cause (error class and message shape, per provider, queue or endpoint), each with a bulk action. */
export function IssuesPage({ me, act }: PageProps) {
  const [days, setDays] = useState(7);
  const [showResolved, setShowResolved] = useState(false);
  const { data, error, reload, loading, updatedAt } = useData(
    () =>
      api<{ issues: Issue[] }>(
        'berth-console-token',
        `/api/issues${query({ days, resolved: showResolved ? 'true' : undefined })}`,
      ),
    [days, showResolved],
    REFRESH_MS,
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
          </select>{' '}
          <label className="check">
            <input type="checkbox" checked={showResolved} onChange={() => setShowResolved(!showResolved)} /> Show
            resolved
          </label>
        </div>
      </div>
      <Updated at={updatedAt} everyMs={REFRESH_MS} loading={loading} onRefresh={reload} />
      <p className="hint">
        Unprocessed webhook events with an error, dead-lettered jobs and failed outbound deliveries, grouped by the same
        error class and message shape in the same provider, queue or endpoint.
      </p>
      <ErrorAlert error={error} />
      {data?.issues.length === 0 && (
        <p>{showResolved ? 'No failures.' : 'No open failures (resolved issues hidden).'}</p>
      )}
      <ol className="issues">
        {data?.issues.map((issue) => (
          <li key={issue.id} className="issue">
            <h2>
              <span className="source">{issue.source}</span> {issue.scope}: <code>{issue.errorClass}</code>{' '}
              <Badge value={issue.status} />
            </h2>
            {(issue.statusBy || issue.reopened) && (
              <p className="hint" data-testid="issue-status">
                {issue.reopened ? (
                  <>
                    Failing again since it was resolved by {issue.statusBy} <Time iso={issue.statusAt} />.
                  </>
                ) : (
                  <>
                    {issue.status === 'open'
                      ? 'Reopened'
                      : issue.status === 'acknowledged'
                        ? 'Acknowledged'
                        : 'Resolved'}{' '}
                    by {issue.statusBy} <Time iso={issue.statusAt} />.
                  </>
                )}
              </p>
            )}
            <p className="shape">
              <code>{issue.shape}</code>
            </p>
            <p>
              <strong>{counted(issue.count, 'occurrence')}</strong> · first seen <Time iso={issue.firstSeen} /> · last{' '}
              <Time iso={issue.lastSeen} /> ·{' '}
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
              <div className="toolbar">
                <button
                  type="button"
                  onClick={() =>
                    act({ action: issue.action.action, params: issue.action.params, label: issue.action.label }, reload)
                  }
                >
                  {issue.action.label}…
                </button>
                {NEXT_STATUSES[issue.status].map((next) => (
                  <button
                    key={next.status}
                    type="button"
                    onClick={() =>
                      act(
                        {
                          action: 'issues.set-status',
                          params: { issueId: issue.id, status: next.status },
                          label: `${next.label} the issue ${issue.scope}: ${issue.errorClass}`,
                        },
                        reload,
                      )
                    }
                  >
                    {next.label}…
                  </button>
                ))}
              </div>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
