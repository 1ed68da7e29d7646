import { useState } from 'react';
import { api, query } from '../api';
import { Badge } from '../components/Badge';
import { counted, dateTime } from '../components/format';
import { EventType, Time } from '../components/Time';
import { Updated } from '../components/Updated';
import { useData } from '../components/useData';
import { Link } from '../router';
import { canAct, type PageProps } from './ConsoleApp';
import { ErrorAlert } from '../components/ErrorAlert';
import { TableHead } from '../components/Table';
import { TraceWaterfall } from '../components/TraceWaterfall';
import type { EventDetail, AttemptEntry } from '../../../src/api/contract';

/** What an outcome means, where its name does not say it all. */
const OUTCOME_HINTS: Partial<Record<AttemptEntry['outcome'], string>> = {
  superseded: 'it recorded no end and a later attempt followed',
  'lease-ran-out': 'never let go (a crash?)',
};

/** How often the page refreshes itself (not while personal data is shown: each unmasked read is audited). */
const REFRESH_MS = 5000;

/** One webhook event: state, headers, payload (masked unless asked), every attempt, alerts, trace; redeliver. */
export function EventPage({ me, act, provider, eventId }: PageProps & { provider: string; eventId: string }) {
  const [reveal, setReveal] = useState(false);
  const { data, error, reload, loading, updatedAt } = useData(
    () =>
      api<EventDetail>(
        'berth-console-token',
        `/api/webhooks/events/${encodeURIComponent(provider)}/${encodeURIComponent(eventId)}${query({ reveal: reveal ? 'true' : undefined })}`,
      ),
    [provider, eventId, reveal],
    reveal ? undefined : REFRESH_MS,
  );
  const lastFailed = data?.attemptLog.filter((attempt) => attempt.outcome === 'failed').at(-1);
  // Failures the attempt log does not show (none today: it lists every failure the row kept).
  const unmatchedFailures = (data?.attemptErrors ?? []).filter(
    (failed) =>
      !data?.attemptLog.some(
        (attempt) => attempt.outcome === 'failed' && attempt.error === failed.error && attempt.endedAt === failed.at,
      ),
  );
  return (
    <section aria-labelledby="event-title">
      <p>
        <Link to="/events">← Webhook events</Link>
      </p>
      <h1 id="event-title">
        {provider}:{eventId}
      </h1>
      <Updated
        at={updatedAt}
        everyMs={REFRESH_MS}
        loading={loading}
        onRefresh={reload}
        paused={reveal ? 'not refreshing while personal data is shown' : undefined}
      />
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
              <dd>
                <EventType type={data.type} />
              </dd>
            </div>
            <div>
              <dt>Received</dt>
              <dd>
                <Time iso={data.receivedAt} />
              </dd>
            </div>
            <div>
              <dt>Attempts</dt>
              <dd data-testid="attempt-place">
                {data.schedule.roundAttempt === 0
                  ? 'none yet'
                  : `attempt ${data.schedule.roundAttempt} of ${data.schedule.perRound} (round ${data.schedule.round} of ${data.schedule.rounds})`}
                {data.abandonedAt ? (
                  <>
                    , set aside <Time iso={data.abandonedAt} absolute />
                  </>
                ) : null}
              </dd>
            </div>
            <div>
              <dt>Last attempt</dt>
              <dd>
                <Time iso={data.lastAttemptAt} />
              </dd>
            </div>
            <div>
              <dt>Next attempt</dt>
              <dd>
                {data.state === 'processed' || data.state === 'set-aside' ? '–' : <Time iso={data.nextAttemptAt} />}
              </dd>
            </div>
            <div>
              <dt>Processed</dt>
              <dd>
                <Time iso={data.processedAt} />
                {data.processedBefore.length > 0 && (
                  <> (before: {data.processedBefore.map((at) => dateTime(at)).join(', ')})</>
                )}
              </dd>
            </div>
            <div>
              <dt>Requeued</dt>
              <dd>{counted(data.requeueCount, 'time')}</dd>
            </div>
            <div>
              <dt>Trace</dt>
              <dd>
                {data.message?.traceId ? (
                  me.jaegerUiUrl ? (
                    <a href="#trace">{data.message.traceId}</a>
                  ) : (
                    <code>{data.message.traceId}</code>
                  )
                ) : (
                  '–'
                )}
              </dd>
            </div>
          </dl>
          <p className="schedule" data-testid="schedule">
            <strong>Retry schedule: </strong>
            {data.schedule.words}
          </p>
          {data.lastError && (
            <div className="callout" id="last-error">
              <h2>{data.state === 'processed' ? 'An earlier attempt failed with' : 'Last error'}</h2>
              <pre className="json">{data.lastError}</pre>
            </div>
          )}
          {canAct(me) && (
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
                          : data.state === 'processed'
                            ? `Send processed event ${provider}:${eventId} again`
                            : `Redeliver ${provider}:${eventId}`,
                    },
                    reload,
                  )
                }
              >
                {data.state === 'set-aside'
                  ? 'Retry this set-aside event…'
                  : data.state === 'processed'
                    ? 'Send again (run the handler once more)…'
                    : 'Redeliver now…'}
              </button>
            </div>
          )}

          <h2>Attempts</h2>
          <p className="hint">
            Every lease taken on the event, and how it ended: a consumer's attempt (succeeded, failed, skipped as a
            duplicate, superseded by another after its lease ran out, lease ran out, running), or an operation
            (recovery, retry, redeliver, send again).
          </p>
          <table>
            <caption className="visually-hidden">Attempts</caption>
            <TableHead columns={['#', 'Kind', 'By', 'Started', 'Ended', 'Outcome', 'Error']} />
            <tbody>
              {data.attemptLog.map((attempt) => (
                <tr key={attempt.generation}>
                  <td>{attempt.generation}</td>
                  <td>{attempt.kind}</td>
                  <td>
                    <code>{attempt.owner}</code>
                  </td>
                  <td>
                    <Time iso={attempt.startedAt} absolute />
                  </td>
                  <td>
                    <Time iso={attempt.endedAt} absolute />
                  </td>
                  <td>
                    <Badge value={attempt.outcome} />
                    {OUTCOME_HINTS[attempt.outcome] && <span className="hint"> {OUTCOME_HINTS[attempt.outcome]}</span>}
                  </td>
                  <td className="error-text">
                    {attempt.error === null ? (
                      ''
                    ) : attempt === lastFailed && attempt.error === data.lastError ? (
                      <a href="#last-error">the last error, above</a>
                    ) : (
                      attempt.error
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>

          {unmatchedFailures.length > 0 && (
            <>
              <h2>Earlier failed attempts</h2>
              <p className="hint">Failures the inbox kept whose lease is no longer in the log above.</p>
              <table>
                <caption className="visually-hidden">Earlier failed attempts</caption>
                <TableHead columns={['Attempt', 'Failed at', 'Error']} />
                <tbody>
                  {unmatchedFailures.map((failed) => (
                    <tr key={`${failed.attempt}-${failed.at}`}>
                      <td>{failed.attempt}</td>
                      <td>
                        <Time iso={failed.at} absolute />
                      </td>
                      <td className="error-text">{failed.error}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )}

          {data.alerts.length > 0 && (
            <>
              <h2>Alerts</h2>
              <ul>
                {data.alerts.map((alert) => (
                  <li key={alert._id}>
                    <Time iso={alert.raisedAt} absolute />: set aside after {counted(alert.attempts, 'attempt')}
                    {alert.hookError ? ` (alert hook failed: ${alert.hookError})` : ''}
                  </li>
                ))}
              </ul>
            </>
          )}

          {data.message?.traceId && me.jaegerUiUrl && (
            <>
              <h2 id="trace">Trace</h2>
              <TraceWaterfall traceId={data.message.traceId} />
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
