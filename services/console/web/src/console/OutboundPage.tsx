import { useState, type FormEvent } from 'react';
import { api, query } from '../api';
import { Badge } from '../components/Badge';
import { DeliveryLog } from '../components/DeliveryLog';
import { counted } from '../components/format';
import { EventType, Time } from '../components/Time';
import { Updated } from '../components/Updated';
import { FilterInput, FilterSelect, FilterSubmit } from '../components/Filters';
import { SetEnabledButton } from '../components/SetEnabledButton';
import { useData } from '../components/useData';
import { useSelection } from '../components/useSelection';
import { Link } from '../router';
import { canAct, type PageProps } from './ConsoleApp';
import { ErrorAlert } from '../components/ErrorAlert';
import { TableHead } from '../components/Table';
import type { Endpoint, Delivery, SentRequest } from '../../../src/api/contract';

/** How often the page refreshes itself. */
const REFRESH_MS = 15_000;

/** Outbound: endpoints per workspace (state, failure run; enable/disable, rotate, recover since) and deliveries (attempts; replay). */
export function OutboundPage({ me, act }: PageProps) {
  const [workspace, setWorkspace] = useState('');
  const [filter, setFilter] = useState({ endpointId: '', status: '', workspaceId: '', eventType: '' });
  const [draft, setDraft] = useState(filter);
  const { selected, toggle, clear } = useSelection<string>();
  const [secret, setSecret] = useState<{ endpointId: string; secret: string } | null>(null);
  const [recoverSince, setRecoverSince] = useState(() => localInput(new Date(Date.now() - 24 * 3600 * 1000)));
  const endpoints = useData(
    () =>
      api<{ endpoints: Endpoint[] }>(
        'berth-console-token',
        `/api/outbound/endpoints${query({ workspaceId: workspace || undefined })}`,
      ),
    [workspace],
    REFRESH_MS,
  );
  const deliveries = useData(
    () =>
      api<{ deliveries: Delivery[] }>(
        'berth-console-token',
        `/api/outbound/deliveries${query({ ...filter, limit: 100 })}`,
      ),
    [filter],
    REFRESH_MS,
  );
  const urlOf = (endpointId: string) =>
    endpoints.data?.endpoints.find((endpoint) => endpoint.id === endpointId)?.url ?? endpointId;
  const reload = () => {
    endpoints.reload();
    deliveries.reload();
    clear();
  };
  const byWorkspace = new Map<string, Endpoint[]>();
  for (const endpoint of endpoints.data?.endpoints ?? [])
    byWorkspace.set(endpoint.workspaceId, [...(byWorkspace.get(endpoint.workspaceId) ?? []), endpoint]);
  const rotate = (endpoint: Endpoint) =>
    act(
      {
        action: 'outbound.rotate-secret',
        params: { endpointId: endpoint.id },
        label: `Rotate the secret of ${endpoint.url}`,
      },
      (result) => {
        setSecret({ endpointId: endpoint.id, secret: (result as { secret: string }).secret });
        reload();
      },
    );
  const recover = (endpoint: Endpoint) => {
    const since = new Date(recoverSince).toISOString();
    act(
      {
        action: 'outbound.recover',
        params: { endpointId: endpoint.id, since },
        label: `Replay failed deliveries of ${endpoint.url} since ${new Date(recoverSince).toLocaleString()}`,
      },
      reload,
    );
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFilter(draft);
  };
  return (
    <section aria-labelledby="outbound-title">
      <h1 id="outbound-title">Outbound</h1>
      <Updated
        at={deliveries.updatedAt}
        everyMs={REFRESH_MS}
        loading={deliveries.loading || endpoints.loading}
        onRefresh={() => {
          endpoints.reload();
          deliveries.reload();
        }}
      />
      {secret && (
        <div className="callout" role="alert">
          <h2>New secret of {urlOf(secret.endpointId)}</h2>
          <p>Shown once: give it to the endpoint's owner.</p>
          <code className="secret">{secret.secret}</code>{' '}
          <button type="button" onClick={() => setSecret(null)}>
            Done
          </button>
        </div>
      )}
      <h2>Endpoints</h2>
      <div className="filters compact">
        <div>
          <label htmlFor="o-ws">Workspace</label>
          <input
            id="o-ws"
            value={workspace}
            onChange={(event) => setWorkspace(event.target.value)}
            placeholder="every workspace"
          />
        </div>
        <div>
          <label htmlFor="o-since">Recover failed deliveries since</label>
          <input
            id="o-since"
            type="datetime-local"
            required
            value={recoverSince}
            onChange={(event) => setRecoverSince(event.target.value)}
          />
        </div>
      </div>
      {[...byWorkspace.entries()].map(([workspaceId, list]) => (
        <article key={workspaceId} aria-label={`Workspace ${workspaceId}`}>
          <h3>Workspace {workspaceId}</h3>
          <table>
            <caption className="visually-hidden">Endpoints of {workspaceId}</caption>
            <TableHead columns={['Endpoint', 'State', 'Failing since', 'Types', 'Secrets']} actions />
            <tbody>
              {list.map((endpoint) => (
                <tr key={endpoint.id}>
                  <td className="endpoint-url">
                    <Link to={`/outbound/endpoints/${encodeURIComponent(endpoint.id)}`}>{endpoint.url}</Link>
                    {endpoint.description ? <div className="hint">{endpoint.description}</div> : null}
                    <div className="hint">
                      <code>{endpoint.id}</code>
                    </div>
                  </td>
                  <td>
                    <Badge value={endpoint.enabled ? 'enabled' : 'disabled'} />
                    {endpoint.disabledReason ? ` (${endpoint.disabledReason})` : ''}
                  </td>
                  <td>
                    <Time iso={endpoint.failingSince} />
                  </td>
                  <td>
                    {endpoint.eventTypes.length
                      ? endpoint.eventTypes.map((type, index) => (
                          <span key={type}>
                            {index > 0 && ', '}
                            <EventType type={type} />
                          </span>
                        ))
                      : 'all'}
                  </td>
                  <td>{endpoint.activeSecrets}</td>
                  <td className="row-actions">
                    <button
                      type="button"
                      onClick={() => {
                        setDraft({ ...draft, endpointId: endpoint.id });
                        setFilter({ ...filter, endpointId: endpoint.id });
                      }}
                    >
                      Deliveries
                    </button>
                    {canAct(me) && (
                      <>
                        <SetEnabledButton action="outbound.set-enabled" endpoint={endpoint} act={act} then={reload} />
                        <button type="button" onClick={() => rotate(endpoint)}>
                          Rotate secret…
                        </button>
                        <button type="button" disabled={!recoverSince} onClick={() => recover(endpoint)}>
                          Recover…
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </article>
      ))}
      {endpoints.data?.endpoints.length === 0 && <p>No endpoints.</p>}

      <h2>Deliveries</h2>
      <form className="filters" onSubmit={submit} aria-label="Filter deliveries">
        <FilterSelect id="d-endpoint" label="Endpoint" draft={draft} setDraft={setDraft} field="endpointId">
          <option value="">Any</option>
          {(endpoints.data?.endpoints ?? []).map((endpoint) => (
            <option key={endpoint.id} value={endpoint.id}>
              {endpoint.url} ({endpoint.workspaceId})
            </option>
          ))}
        </FilterSelect>
        <FilterInput
          id="d-type"
          label="Event type"
          draft={draft}
          setDraft={setDraft}
          field="eventType"
          placeholder="invoice.paid"
        />
        <FilterInput id="d-ws" label="Workspace" draft={draft} setDraft={setDraft} field="workspaceId" />
        <FilterSelect id="d-status" label="Status" draft={draft} setDraft={setDraft} field="status">
          <option value="">Any</option>
          <option value="pending">Pending</option>
          <option value="delivered">Delivered</option>
          <option value="failed">Failed</option>
          <option value="skipped">Skipped</option>
        </FilterSelect>
        <FilterSubmit>Filter</FilterSubmit>
      </form>
      {canAct(me) && (
        <div className="toolbar">
          <button
            type="button"
            disabled={selected.size === 0}
            onClick={() =>
              act(
                {
                  action: 'outbound.replay',
                  params: { deliveryIds: [...selected] },
                  label: `Replay ${counted(selected.size, 'selected delivery', 'selected deliveries')}`,
                },
                reload,
              )
            }
          >
            Replay selected ({selected.size})
          </button>
        </div>
      )}
      <ErrorAlert error={deliveries.error} />
      <DeliveryLog
        deliveries={deliveries.data?.deliveries ?? []}
        selected={canAct(me) ? selected : undefined}
        onToggle={toggle}
        endpointLabel={urlOf}
        loadRequest={(id) =>
          api<SentRequest>('berth-console-token', `/api/outbound/deliveries/${encodeURIComponent(id)}/request`)
        }
        onReplay={
          canAct(me)
            ? (delivery) =>
                act(
                  {
                    action: 'outbound.replay',
                    params: { deliveryIds: [delivery.id] },
                    label: `Replay delivery ${delivery.id}`,
                  },
                  reload,
                )
            : undefined
        }
      />
    </section>
  );
}

/** A date as a `datetime-local` input's value, in local time. */
function localInput(date: Date): string {
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}
