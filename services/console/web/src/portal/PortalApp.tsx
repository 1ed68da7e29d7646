import { useEffect, useState, type FormEvent } from 'react';
import { api, getToken, query, setToken } from '../api';
import { ActionDialog, ActionNotice, usePendingAction } from '../components/ActionDialog';
import { Badge } from '../components/Badge';
import { DeliveryLog } from '../components/DeliveryLog';
import { relative } from '../components/format';
import { SetEnabledButton } from '../components/SetEnabledButton';
import { useData } from '../components/useData';
import { ErrorAlert } from '../components/ErrorAlert';
import { TableHead } from '../components/Table';
import type {
  PortalSessionView as Session,
  EventTypeDoc as EventType,
  PortalEndpoint as Endpoint,
  Delivery,
} from '../../../src/api/contract';

const SLOT = 'berth-portal-token' as const;

/** Takes the token from the link's fragment (never sent to a server, so never in an access log) and drops it from the address bar. */
function takeTokenFromLink(): void {
  const match = /(?:^#|&)token=([^&]+)/.exec(window.location.hash);
  if (match) {
    setToken(SLOT, decodeURIComponent(match[1]));
    window.history.replaceState(null, '', window.location.pathname + window.location.search);
  }
}

/**
 * The endpoint portal a product links its customers to: their endpoints (add, edit the subscribed types, enable or
 * disable, rotate the secret, delete), the event types they can subscribe to with their JSON Schemas, a test event,
 * and the delivery log with replay. Everything is scoped to the workspace of the link's token.
 */
export function PortalApp() {
  const [session, setSession] = useState<Session | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    takeTokenFromLink();
    if (!getToken(SLOT)) {
      setFailure('Open this page from the link in your product: it carries a short-lived access token.');
      return;
    }
    api<Session>(SLOT, '/api/portal/session').then(setSession, (error: Error) => setFailure(error.message));
  }, []);
  useEffect(() => {
    document.title = 'Webhooks · endpoint portal';
  }, []);
  if (failure)
    return (
      <main className="portal">
        <h1>Webhooks</h1>
        <p role="alert" className="error">
          {failure}
        </p>
      </main>
    );
  if (!session)
    return (
      <main className="portal">
        <p role="status">Loading…</p>
      </main>
    );
  return <Portal session={session} />;
}

function Portal({ session }: { session: Session }) {
  const { act, notice, dialog } = usePendingAction();
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const [endpointFilter, setEndpointFilter] = useState('');
  const [statusFilter, setStatusFilter] = useState('');
  const [typeFilter, setTypeFilter] = useState('');
  const [editing, setEditing] = useState<Endpoint | null>(null);
  const catalog = useData(() => api<{ eventTypes: EventType[] }>(SLOT, '/api/portal/event-types'), []);
  const endpoints = useData(() => api<{ endpoints: Endpoint[] }>(SLOT, '/api/portal/endpoints'), []);
  const deliveries = useData(
    () =>
      api<{ deliveries: Delivery[] }>(
        SLOT,
        `/api/portal/deliveries${query({ endpointId: endpointFilter, status: statusFilter, eventType: typeFilter, limit: 50 })}`,
      ),
    [endpointFilter, statusFilter, typeFilter],
    10_000,
  );
  const reload = () => {
    endpoints.reload();
    deliveries.reload();
  };
  const types = catalog.data?.eventTypes ?? [];
  return (
    <div className="portal">
      <a className="skip" href="#portal-main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Webhooks</span>
        <span className="who">
          Workspace <strong>{session.workspaceId}</strong> · this page's access ends {relative(session.expiresAt)}
        </span>
      </header>
      <main id="portal-main" tabIndex={-1}>
        <h1>Your webhook endpoints</h1>
        <ActionNotice notice={notice} />
        {secret && (
          <div className="callout" role="alert">
            <h2>Signing secret of {secret.url}</h2>
            <p>
              Shown once. Verify our <code>webhook-signature</code> header with it (Standard Webhooks); the previous
              secret keeps signing for 24 hours.
            </p>
            <code className="secret" data-testid="new-secret">
              {secret.secret}
            </code>{' '}
            <button type="button" onClick={() => setSecret(null)}>
              I saved it
            </button>
          </div>
        )}
        <ErrorAlert error={endpoints.error} />
        <table>
          <caption className="visually-hidden">Endpoints</caption>
          <TableHead columns={['URL', 'State', 'Event types', 'Failing since']} actions />
          <tbody>
            {endpoints.data?.endpoints.length === 0 && (
              <tr>
                <td colSpan={5}>No endpoints yet: add one below.</td>
              </tr>
            )}
            {endpoints.data?.endpoints.map((endpoint) => (
              <tr key={endpoint.id}>
                <td>
                  {endpoint.url}
                  <br />
                  <span className="hint">{endpoint.description || endpoint.id}</span>
                </td>
                <td>
                  <Badge value={endpoint.enabled ? 'enabled' : 'disabled'} />
                  {endpoint.disabledReason === 'failing'
                    ? ' (kept failing)'
                    : endpoint.disabledReason === 'gone'
                      ? ' (answered 410)'
                      : ''}
                </td>
                <td>{endpoint.eventTypes.length ? endpoint.eventTypes.join(', ') : 'all types'}</td>
                <td>{endpoint.failingSince ? relative(endpoint.failingSince) : '–'}</td>
                <td className="row-actions">
                  <button type="button" onClick={() => setEndpointFilter(endpoint.id)}>
                    Deliveries
                  </button>
                  <button type="button" aria-controls="endpoint-form" onClick={() => setEditing(endpoint)}>
                    Edit
                  </button>
                  <SetEnabledButton action="portal.set-enabled" endpoint={endpoint} act={act} then={reload} />
                  <button
                    type="button"
                    onClick={() =>
                      act(
                        {
                          action: 'portal.rotate-secret',
                          params: { endpointId: endpoint.id },
                          label: `Rotate the signing secret of ${endpoint.url}`,
                        },
                        (result) => {
                          setSecret({ url: endpoint.url, secret: (result as { secret: string }).secret });
                          reload();
                        },
                      )
                    }
                  >
                    Rotate secret…
                  </button>
                  <button
                    type="button"
                    onClick={() =>
                      act(
                        {
                          action: 'portal.delete-endpoint',
                          params: { endpointId: endpoint.id },
                          label: `Delete ${endpoint.url}`,
                        },
                        reload,
                      )
                    }
                  >
                    Delete…
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>

        {editing ? (
          <EndpointForm
            key={editing.id}
            types={types}
            editing={editing}
            onCancel={() => setEditing(null)}
            onSubmit={(params) =>
              act(
                {
                  action: 'portal.update-endpoint',
                  params: { endpointId: editing.id, ...params },
                  label: `Save the changes to ${editing.url}`,
                },
                () => {
                  setEditing(null);
                  reload();
                },
              )
            }
          />
        ) : (
          <EndpointForm
            key="add"
            types={types}
            onSubmit={(params) =>
              act(
                { action: 'portal.create-endpoint', params, label: `Add endpoint ${params.url as string}` },
                (result) => {
                  setSecret({ url: params.url as string, secret: (result as { secret: string }).secret });
                  reload();
                },
              )
            }
          />
        )}

        <h2>Send a test event</h2>
        <TestEvent
          types={types}
          onSend={(eventType) =>
            act({ action: 'portal.send-test', params: { eventType }, label: `Send a test ${eventType} event` }, () =>
              setTimeout(reload, 1000),
            )
          }
        />

        <h2 id="log-title">Delivery log</h2>
        <div className="filters compact" role="group" aria-labelledby="log-title">
          <div>
            <label htmlFor="p-endpoint">Endpoint</label>
            <select id="p-endpoint" value={endpointFilter} onChange={(event) => setEndpointFilter(event.target.value)}>
              <option value="">All endpoints</option>
              {endpoints.data?.endpoints.map((endpoint) => (
                <option key={endpoint.id} value={endpoint.id}>
                  {endpoint.url}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor="p-type">Deliveries of type</label>
            <select id="p-type" value={typeFilter} onChange={(event) => setTypeFilter(event.target.value)}>
              <option value="">Any</option>
              {types.map((entry) => (
                <option key={entry.type} value={entry.type}>
                  {entry.type}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor="p-status">Status</label>
            <select id="p-status" value={statusFilter} onChange={(event) => setStatusFilter(event.target.value)}>
              <option value="">Any</option>
              <option value="pending">Pending</option>
              <option value="delivered">Delivered</option>
              <option value="failed">Failed</option>
              <option value="skipped">Skipped</option>
            </select>
          </div>
        </div>
        <DeliveryLog
          deliveries={deliveries.data?.deliveries ?? []}
          endpointLabel={(id) => endpoints.data?.endpoints.find((candidate) => candidate.id === id)?.url ?? id}
          onReplay={(delivery) =>
            act(
              {
                action: 'portal.replay',
                params: { deliveryIds: [delivery.id] },
                label: `Replay ${delivery.eventType} delivery`,
              },
              reload,
            )
          }
        />

        <h2>Event types you can subscribe to</h2>
        <ErrorAlert error={catalog.error} />
        <ul className="catalog">
          {types.map((entry) => (
            <li key={entry.type}>
              <h3>
                <code>{entry.type}</code> {entry.group && <span className="hint">{entry.group}</span>}
              </h3>
              <p>{entry.description}</p>
              <details>
                <summary>
                  JSON Schema of <code>data</code>
                </summary>
                <pre className="json small">{JSON.stringify(entry.schema, null, 2)}</pre>
              </details>
              <details>
                <summary>Example</summary>
                <pre className="json small">
                  {JSON.stringify(
                    { type: entry.type, timestamp: '2026-01-01T00:00:00.000Z', data: entry.example },
                    null,
                    2,
                  )}
                </pre>
              </details>
            </li>
          ))}
        </ul>
      </main>
      <ActionDialog slot={SLOT} base="/api/portal/actions" {...dialog} />
    </div>
  );
}

/** The form that adds an endpoint, or (`editing`) changes one's URL, description and event types. */
function EndpointForm({
  types,
  editing,
  onSubmit,
  onCancel,
}: {
  types: EventType[];
  editing?: Endpoint;
  onSubmit: (params: Record<string, unknown>) => void;
  onCancel?: () => void;
}) {
  const [url, setUrl] = useState(editing?.url ?? '');
  const [description, setDescription] = useState(editing?.description ?? '');
  const [chosen, setChosen] = useState<Set<string>>(new Set(editing?.eventTypes ?? []));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit({
      url: url.trim(),
      ...(description || editing ? { description } : {}),
      eventTypes: [...chosen],
    });
  };
  const prefix = editing ? 'e' : 'a';
  return (
    <form id="endpoint-form" className="add-endpoint" onSubmit={submit} aria-labelledby={`${prefix}-title`}>
      <h2 id={`${prefix}-title`}>{editing ? `Edit ${editing.url}` : 'Add an endpoint'}</h2>
      <div>
        <label htmlFor={`${prefix}-url`}>URL</label>
        <input
          id={`${prefix}-url`}
          type="url"
          required
          value={url}
          onChange={(event) => setUrl(event.target.value)}
          placeholder="https://example.com/webhooks"
        />
      </div>
      <div>
        <label htmlFor={`${prefix}-description`}>Description (optional)</label>
        <input
          id={`${prefix}-description`}
          value={description}
          onChange={(event) => setDescription(event.target.value)}
        />
      </div>
      <fieldset>
        <legend>Event types (none chosen: every type)</legend>
        {types.map((entry) => (
          <label key={entry.type} className="check">
            <input
              type="checkbox"
              checked={chosen.has(entry.type)}
              onChange={() =>
                setChosen((previous) => {
                  const next = new Set(previous);
                  if (next.has(entry.type)) next.delete(entry.type);
                  else next.add(entry.type);
                  return next;
                })
              }
            />{' '}
            <code>{entry.type}</code>
          </label>
        ))}
      </fieldset>
      <div className="toolbar">
        <button type="submit" className="primary">
          {editing ? 'Save changes…' : 'Add endpoint…'}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

function TestEvent({ types, onSend }: { types: EventType[]; onSend: (eventType: string) => void }) {
  const [eventType, setEventType] = useState('webhook.test');
  return (
    <form
      className="filters compact"
      onSubmit={(event) => {
        event.preventDefault();
        onSend(eventType);
      }}
      aria-label="Send a test event"
    >
      <div>
        <label htmlFor="t-type">Event type</label>
        <select id="t-type" value={eventType} onChange={(event) => setEventType(event.target.value)}>
          {types.map((entry) => (
            <option key={entry.type} value={entry.type}>
              {entry.type}
            </option>
          ))}
        </select>
      </div>
      <div className="filter-buttons">
        <button type="submit">Send test event…</button>
      </div>
    </form>
  );
}
