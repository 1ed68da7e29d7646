import { useState } from 'react';
import { api, query } from '../api';
import { Badge } from '../components/Badge';
import { dateTime } from '../components/format';
import { useData } from '../components/useData';
import { Link } from '../router';
import { canAct, type PageProps } from './ConsoleApp';
import type { EventRow } from './EventsPage';
import { ErrorAlert } from '../components/ErrorAlert';
import { TableHead } from '../components/Table';

interface EventDetail extends EventRow {
  nextAttemptAt: string | null;
  processedAt: string | null;
  abandonedAt: string | null;
  requeueCount: number;
  reopenedAt: string | null;
  payload: string;
  payloadMasked: boolean;
  attemptErrors: { attempt: number; at: string; error: string }[];
  providerHeaders: Record<string, string>;
  attemptLog: {
    attempt: number;
    outcome: 'succeeded' | 'failed' | 'running' | 'superseded' | 'lease ran out';
    owner: string | null;
    endedAt: string | null;
    error: string | null;
  }[];
  alerts: { _id: string; raisedAt: string; attempts: number; lastError: string | null; hookError: string | null }[];
  message: {
    streamSequence: number;
    subject: string;
    storedAt: string;
    headers: Record<string, string>;
    batchSize: number;
    traceId: string | null;
  } | null;
  traceUrl: string | null;
}

/** One webhook event: state, headers, payload (masked unless asked), every attempt, alerts, trace; redeliver. */
export function EventPage({ me, act, provider, eventId }: PageProps & { provider: string; eventId: string }) {
  const [reveal, setReveal] = useState(false);
  const { data, error, reload } = useData(
    () =>
      api<EventDetail>(
        'berth-console-token',
        `/api/webhooks/events/${encodeURIComponent(provider)}/${encodeURIComponent(eventId)}${query({ reveal: reveal ? 'true' : undefined })}`,
      ),
    [provider, eventId, reveal],
  );
  return (
    <section aria-labelledby="event-title">
      <p>
        <Link to="/events">← Webhook events</Link>
      </p>
      <h1 id="event-title">
        {provider}:{eventId}
      </h1>
      <ErrorAlert error={error} />
      {data && (
        <>
          <dl className="facts">
            <div>
              <dt>State</dt>
              <dd>
                <Badge value={data.state} />
              </dd>
            </div>
            <div>
              <dt>Type</dt>
              <dd>{data.type}</dd>
            </div>
            <div>
              <dt>Received</dt>
              <dd>{dateTime(data.receivedAt)}</dd>
            </div>
            <div>
              <dt>Attempts</dt>
              <dd>{data.attempts}</dd>
            </div>
            <div>
              <dt>Last attempt</dt>
              <dd>{dateTime(data.lastAttemptAt)}</dd>
            </div>
            <div>
              <dt>Next attempt</dt>
              <dd>{data.state === 'processed' || data.state === 'set-aside' ? '–' : dateTime(data.nextAttemptAt)}</dd>
            </div>
            <div>
              <dt>Processed</dt>
              <dd>{dateTime(data.processedAt)}</dd>
            </div>
            <div>
              <dt>Set aside</dt>
              <dd>{dateTime(data.abandonedAt)}</dd>
            </div>
            <div>
              <dt>Requeued</dt>
              <dd>{data.requeueCount} time(s)</dd>
            </div>
            <div>
              <dt>Trace</dt>
              <dd>
                {data.message?.traceId ? (
                  data.traceUrl ? (
                    <a href={data.traceUrl} target="_blank" rel="noreferrer">
                      {data.message.traceId} (Jaeger)
                    </a>
                  ) : (
                    <code>{data.message.traceId}</code>
                  )
                ) : (
                  '–'
                )}
              </dd>
            </div>
          </dl>
          {data.lastError && (
            <div className="callout">
              <h2>{data.state === 'processed' ? 'An earlier attempt failed with' : 'Last error'}</h2>
              <pre className="json">{data.lastError}</pre>
            </div>
          )}
          {canAct(me) && data.state !== 'processed' && (
            <div className="toolbar">
              <button
                type="button"
                className="primary"
                onClick={() =>
                  act(
                    {
                      action: data.state === 'set-aside' ? 'webhooks.retry-abandoned' : 'webhooks.redeliver',
                      params: data.state === 'set-aside' ? { events: [{ provider, eventId }] } : { provider, eventId },
                      label:
                        data.state === 'set-aside'
                          ? `Retry set-aside event ${provider}:${eventId}`
                          : `Redeliver ${provider}:${eventId}`,
                    },
                    reload,
                  )
                }
              >
                {data.state === 'set-aside' ? 'Retry this set-aside event…' : 'Redeliver now…'}
              </button>
            </div>
          )}

          <h2>Attempts</h2>
          <p className="hint">
            Each attempt of the current round and how it ended: succeeded, failed (with its error), running, superseded
            by a later attempt, or its lease ran out.
          </p>
          <table>
            <caption className="visually-hidden">Attempts</caption>
            <TableHead columns={['#', 'Outcome', 'By', 'Ended', 'Error']} />
            <tbody>
              {data.attemptLog.map((attempt) => (
                <tr key={attempt.attempt}>
                  <td>{attempt.attempt}</td>
                  <td>{attempt.outcome}</td>
                  <td>{attempt.owner ? <code>{attempt.owner}</code> : ''}</td>
                  <td>{attempt.endedAt ? dateTime(attempt.endedAt) : ''}</td>
                  <td className="error-text">{attempt.error ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>

          <h2>Failed attempts</h2>
          {data.attemptErrors.length > 0 ? (
            <table>
              <caption className="visually-hidden">Failed attempts</caption>
              <TableHead columns={['Attempt', 'Failed at', 'Error']} />
              <tbody>
                {data.attemptErrors.map((failed) => (
                  <tr key={`${failed.attempt}-${failed.at}`}>
                    <td>{failed.attempt}</td>
                    <td>{dateTime(failed.at)}</td>
                    <td className="error-text">{failed.error}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p>
              {data.lastError
                ? "This event was stored before every attempt's error was kept; the last error is above."
                : 'No attempt has failed.'}
            </p>
          )}

          {data.alerts.length > 0 && (
            <>
              <h2>Alerts</h2>
              <ul>
                {data.alerts.map((alert) => (
                  <li key={alert._id}>
                    {dateTime(alert.raisedAt)}: set aside after {alert.attempts} attempts
                    {alert.hookError ? ` (alert hook failed: ${alert.hookError})` : ''}
                  </li>
                ))}
              </ul>
            </>
          )}

          <h2>Provider headers</h2>
          {Object.keys(data.providerHeaders).length > 0 ? (
            <>
              <p className="hint">
                The headers the provider signed or identified the event with, kept in the inbox and given to the handler
                on every attempt.
              </p>
              <HeadersTable caption="Provider headers" headers={data.providerHeaders} />
            </>
          ) : (
            <p>None kept (the event was stored before provider headers were).</p>
          )}

          <h2>Message headers</h2>
          {data.message ? (
            <>
              <p className="hint">
                WEBHOOKS sequence {data.message.streamSequence} on <code>{data.message.subject}</code>, stored{' '}
                {dateTime(data.message.storedAt)}
                {data.message.batchSize > 1 ? `, one of ${data.message.batchSize} events in a batch message` : ''}.
              </p>
              <HeadersTable caption="Headers" headers={data.message.headers} />
            </>
          ) : (
            <p>
              The message is no longer in the WEBHOOKS stream (older than its max age); the inbox row below is the
              record.
            </p>
          )}

          <h2>Payload</h2>
          <div className="toolbar">
            <button type="button" aria-pressed={reveal} onClick={() => setReveal(!reveal)}>
              {reveal ? 'Mask personal data' : 'Show personal data (logged)'}
            </button>
            <span className="hint">
              {data.payloadMasked ? 'Personal data is masked.' : 'Unmasked: this read was written to the audit trail.'}
            </span>
          </div>
          <pre className="json" aria-label="Payload">
            {data.payload}
          </pre>
        </>
      )}
    </section>
  );
}

/** Headers as a two-column table: each name, and its value as code. */
function HeadersTable({ caption, headers }: { caption: string; headers: Record<string, string> }) {
  return (
    <table className="headers">
      <caption className="visually-hidden">{caption}</caption>
      <tbody>
        {Object.entries(headers).map(([name, value]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td>
              <code>{value}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
