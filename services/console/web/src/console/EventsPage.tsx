import { useState, type FormEvent } from 'react';
import { api, query } from '../api';
import { Badge } from '../components/Badge';
import { counted } from '../components/format';
import { EventType, Time } from '../components/Time';
import { Updated } from '../components/Updated';
import { FilterInput, FilterSelect, FilterSubmit } from '../components/Filters';
import { useData } from '../components/useData';
import { useSelection } from '../components/useSelection';
import { Link, navigate, useLocation } from '../router';
import { canAct, type PageProps } from './ConsoleApp';
import { ErrorAlert } from '../components/ErrorAlert';
import { TableHead } from '../components/Table';
import type { EventRow } from '../../../src/api/contract';

/** How often the list refreshes itself. */
const REFRESH_MS = 10_000;

/** When the event runs next, as the list says it: a time, "recovery cron" once its round ended, or nothing. */
export function NextAttempt({ row }: { row: EventRow }) {
  if (row.state === 'processed' || row.state === 'set-aside') return <>–</>;
  if (row.nextAttemptAt) return <Time iso={row.nextAttemptAt} />;
  if (row.roundEndedAt) return <>next round: recovery cron (≤ 10 min)</>;
  return <>{row.state === 'pending' ? 'on delivery' : '–'}</>;
}

const FIELDS = ['provider', 'type', 'state', 'eventId', 'from', 'to'] as const;

/** Webhook events: search the inbox; retry a selection or every set-aside event of a provider (previewed first). */
export function EventsPage({ me, act }: PageProps) {
  const { search } = useLocation();
  const filters = Object.fromEntries(FIELDS.map((field) => [field, search.get(field) ?? ''])) as Record<
    (typeof FIELDS)[number],
    string
  >;
  const [draft, setDraft] = useState(filters);
  const { selected, toggle, clear } = useSelection<string>();
  const providers = useData(() => api<{ providers: string[] }>('berth-console-token', '/api/webhooks/providers'), []);
  const toIso = (local: string) => (local ? new Date(local).toISOString() : undefined);
  const { data, error, reload, loading, updatedAt } = useData(
    () =>
      api<{ events: EventRow[]; total: number }>(
        'berth-console-token',
        `/api/webhooks/events${query({ ...filters, from: toIso(filters.from), to: toIso(filters.to), limit: 200 })}`,
      ),
    [search.toString()],
    REFRESH_MS,
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    clear();
    navigate(`/events${query(draft)}`);
  };
  const keyOf = (row: EventRow) => `${row.provider}:${row.eventId}`;
  const selectedRefs = (data?.events ?? [])
    .filter((row) => selected.has(keyOf(row)))
    .map((row) => ({ provider: row.provider, eventId: row.eventId }));
  return (
    <section aria-labelledby="events-title">
      <h1 id="events-title">Webhook events</h1>
      <form className="filters" onSubmit={submit} aria-label="Search events">
        <FilterSelect id="f-provider" label="Provider" draft={draft} setDraft={setDraft} field="provider">
          <option value="">Any</option>
          {(providers.data?.providers ?? []).map((provider) => (
            <option key={provider} value={provider}>
              {provider}
            </option>
          ))}
        </FilterSelect>
        <FilterInput
          id="f-type"
          label="Type"
          draft={draft}
          setDraft={setDraft}
          field="type"
          placeholder="invoice.paid"
        />
        <FilterSelect id="f-state" label="State" draft={draft} setDraft={setDraft} field="state">
          <option value="">Any</option>
          <option value="pending">Pending (no attempt yet)</option>
          <option value="retrying">Retrying</option>
          <option value="set-aside">Set aside</option>
          <option value="processed">Processed</option>
        </FilterSelect>
        <FilterInput
          id="f-event"
          label="Event id"
          draft={draft}
          setDraft={setDraft}
          field="eventId"
          placeholder="evt_…"
        />
        <FilterInput
          id="f-from"
          label="Received from"
          draft={draft}
          setDraft={setDraft}
          field="from"
          type="datetime-local"
        />
        <FilterInput
          id="f-to"
          label="Received until"
          draft={draft}
          setDraft={setDraft}
          field="to"
          type="datetime-local"
        />
        <FilterSubmit>Search</FilterSubmit>
      </form>
      <Updated at={updatedAt} everyMs={REFRESH_MS} loading={loading} onRefresh={reload} />
      <ErrorAlert error={error} />
      {canAct(me) && (
        <div className="toolbar" role="group" aria-label="Bulk actions">
          <button
            type="button"
            disabled={selectedRefs.length === 0}
            onClick={() =>
              act(
                {
                  action: 'webhooks.retry-abandoned',
                  params: { events: selectedRefs },
                  label: `Retry ${counted(selectedRefs.length, 'selected event')}`,
                },
                reload,
              )
            }
          >
            Retry selected ({selectedRefs.length})
          </button>
          <button
            type="button"
            onClick={() =>
              act(
                {
                  action: 'webhooks.retry-abandoned',
                  params: { all: true, ...(filters.provider ? { provider: filters.provider } : {}) },
                  label: `Retry every set-aside event${filters.provider ? ` of ${filters.provider}` : ''}`,
                },
                reload,
              )
            }
          >
            Retry all set-aside{filters.provider ? ` of ${filters.provider}` : ''}…
          </button>
        </div>
      )}
      {data && (
        <p className="hint">
          {data.events.length} of {counted(data.total, 'matching event')}, newest first.
        </p>
      )}
      <table className="events">
        <caption className="visually-hidden">Matching webhook events</caption>
        <TableHead
          columns={['Event', 'Type', 'State', 'Received', 'Attempts', 'Next attempt', 'Last error']}
          select={canAct(me)}
        />
        <tbody>
          {data?.events.map((row) => (
            <tr key={keyOf(row)}>
              {canAct(me) && (
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Select ${keyOf(row)}`}
                    checked={selected.has(keyOf(row))}
                    onChange={() => toggle(keyOf(row))}
                  />
                </td>
              )}
              <td>
                <Link to={`/events/${encodeURIComponent(row.provider)}/${encodeURIComponent(row.eventId)}`}>
                  {row.provider}:{row.eventId}
                </Link>
              </td>
              <td>
                <EventType type={row.type} />
              </td>
              <td>
                <Badge value={row.state} />
              </td>
              <td>
                <Time iso={row.receivedAt} />
              </td>
              <td>{row.attempts}</td>
              <td>
                <NextAttempt row={row} />
              </td>
              <td className="error-text">{row.lastError ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
