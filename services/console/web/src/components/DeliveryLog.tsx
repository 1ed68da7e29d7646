import { Fragment, useState } from 'react';
import { Badge } from './Badge';
import { dateTime } from './format';
import { EventType, Time } from './Time';
import { TableHead } from './Table';
import type { Delivery, SentRequest } from '../../../src/api/contract';

/**
 * What an entry's badge says: its outcome, except that an attempt whose outcome asked for a retry which never came
 * (the delivery failed with it: the schedule ended, or the endpoint was disabled) reads as what the delivery became.
 */
function outcomeOf(entry: Delivery['log'][number]): string {
  if (entry.outcome === 'retry' && entry.status !== 'pending') return entry.status;
  return entry.outcome ?? entry.status;
}

/** The request sent: method, URL, headers, each attempt's signed timestamp and the body; loaded when opened. */
function RequestSent({ load }: { load: () => Promise<SentRequest> }) {
  const [request, setRequest] = useState<SentRequest | null>(null);
  const [error, setError] = useState<string | null>(null);
  return (
    <details
      className="request-sent"
      onToggle={(event) => {
        if ((event.target as HTMLDetailsElement).open && !request)
          load().then(setRequest, (failure: Error) => setError(failure.message));
      }}
    >
      <summary>Request sent</summary>
      {error && <p className="error">{error}</p>}
      {request && (
        <>
          <p>
            <code>
              {request.method} {request.url ?? '(endpoint deleted)'}
            </code>
          </p>
          <table className="headers">
            <caption className="visually-hidden">Request headers</caption>
            <tbody>
              {Object.entries(request.headers).map(([name, value]) => (
                <tr key={name}>
                  <th scope="row">{name}</th>
                  <td>
                    <code>{value}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="hint">webhook-timestamp of each attempt: {request.timestamps.join(', ') || 'none yet'}</p>
          <pre className="json small" aria-label="Request body">
            {request.body ?? '(the event is no longer stored)'}
          </pre>
        </>
      )}
    </details>
  );
}

/** The delivery log: one row per delivery, opening to every attempt with its response; optional selection and replay. */
export function DeliveryLog({
  deliveries,
  selected,
  onToggle,
  onReplay,
  endpointLabel = (id) => id,
  loadRequest,
}: {
  deliveries: Delivery[];
  selected?: Set<string>;
  onToggle?: (id: string) => void;
  onReplay?: (delivery: Delivery) => void;
  endpointLabel?: (endpointId: string) => string;
  /** Where the request a delivery sent is read (the console's API); without it none is shown. */
  loadRequest?: (deliveryId: string) => Promise<SentRequest>;
}) {
  const [open, setOpen] = useState<string | null>(null);
  const columns = 7 + (selected ? 1 : 0);
  return (
    <table className="deliveries">
      <caption className="visually-hidden">Deliveries, newest first</caption>
      <TableHead
        columns={['Delivery', 'Endpoint', 'Type', 'Status', 'Attempts', 'Created']}
        select={Boolean(selected)}
        actions
      />
      <tbody>
        {deliveries.length === 0 && (
          <tr>
            <td colSpan={columns}>No deliveries.</td>
          </tr>
        )}
        {deliveries.map((delivery) => (
          <Fragment key={delivery.id}>
            <tr>
              {selected && (
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Select delivery ${delivery.id}`}
                    checked={selected.has(delivery.id)}
                    onChange={() => onToggle?.(delivery.id)}
                  />
                </td>
              )}
              <td>
                <code>{delivery.id}</code>
              </td>
              <td className="endpoint-url">{endpointLabel(delivery.endpointId)}</td>
              <td>
                <EventType type={delivery.eventType} />
              </td>
              <td>
                <Badge value={delivery.status} />
              </td>
              <td>
                {delivery.attemptCount}
                {delivery.replays > 0 ? ` (${delivery.replays} replay)` : ''}
              </td>
              <td>
                <Time iso={delivery.createdAt} />
              </td>
              <td className="row-actions">
                <button
                  type="button"
                  aria-expanded={open === delivery.id}
                  aria-controls={`log-${delivery.id}`}
                  onClick={() => setOpen(open === delivery.id ? null : delivery.id)}
                >
                  {open === delivery.id ? 'Hide attempts' : 'Attempts'}
                </button>
                {onReplay && delivery.status !== 'pending' && (
                  <button type="button" onClick={() => onReplay(delivery)}>
                    Replay…
                  </button>
                )}
              </td>
            </tr>
            {open === delivery.id && (
              <tr id={`log-${delivery.id}`}>
                <td colSpan={columns}>
                  {loadRequest && <RequestSent load={() => loadRequest(delivery.id)} />}
                  <ol className="attempts">
                    {delivery.log.map((entry, index) => (
                      <li key={index}>
                        <strong>
                          {entry.kind === 'replay'
                            ? `Replay ${entry.round}`
                            : entry.kind === 'skipped'
                              ? 'Skipped (endpoint disabled)'
                              : `Attempt ${entry.attempt}${entry.round > 0 ? ` of replay ${entry.round}` : ''}`}
                        </strong>{' '}
                        {dateTime(entry.at)} · <Badge value={outcomeOf(entry)} />
                        {entry.outcome === 'retry' && entry.status !== 'pending' ? ' (no retry follows)' : ''}
                        {entry.statusCode !== null ? ` · HTTP ${entry.statusCode}` : ''}
                        {entry.durationMs !== null ? ` · ${entry.durationMs} ms` : ''}
                        {entry.address ? ` · ${entry.address}` : ''}
                        {entry.error && <div className="error-text">{entry.error}</div>}
                        {entry.responseBody && (
                          <pre className="json small" aria-label="Response body">
                            {entry.responseBody}
                          </pre>
                        )}
                      </li>
                    ))}
                  </ol>
                </td>
              </tr>
            )}
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}
