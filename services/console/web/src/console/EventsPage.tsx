import { useState, type FormEvent } from 'react';
import { api, query } from '../api';
import { Badge } from '../components/Badge';
import { dateTime, relative } from '../components/format';
import { useData } from '../components/useData';
import { Link, navigate, useLocation } from '../router';
import { canAct, type PageProps } from './ConsoleApp';

interface EventRow {
  provider: string;
  eventId: string;
  type: string;
  state: string;
  receivedAt: string;
  attempts: number;
  lastError: string | null;
  lastAttemptAt: string | null;
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
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const providers = useData(() => api<{ providers: string[] }>('berth-console-token', '/api/webhooks/providers'), []);
  const toIso = (local: string) => (local ? new Date(local).toISOString() : undefined);
  const { data, error, reload } = useData(
    () =>
      api<{ events: EventRow[]; total: number }>(
        'berth-console-token',
        `/api/webhooks/events${query({ ...filters, from: toIso(filters.from), to: toIso(filters.to), limit: 200 })}`,
      ),
    [search.toString()],
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSelected(new Set());
    navigate(`/events${query(draft)}`);
  };
  const keyOf = (row: EventRow) => `${row.provider}:${row.eventId}`;
  const toggle = (key: string) =>
    setSelected((previous) => {
      const next = new Set(previous);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  const selectedRefs = (data?.events ?? [])
    .filter((row) => selected.has(keyOf(row)))
    .map((row) => ({ provider: row.provider, eventId: row.eventId }));
  return (
    <section aria-labelledby="events-title">
      <h1 id="events-title">Webhook events</h1>
      <form className="filters" onSubmit={submit} aria-label="Search events">
        <div>
          <label htmlFor="f-provider">Provider</label>
          <select
            id="f-provider"
            value={draft.provider}
            onChange={(event) => setDraft({ ...draft, provider: event.target.value })}
          >
            <option value="">Any</option>
            {(providers.data?.providers ?? []).map((provider) => (
              <option key={provider} value={provider}>
                {provider}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="f-type">Type</label>
          <input
            id="f-type"
            value={draft.type}
            onChange={(event) => setDraft({ ...draft, type: event.target.value })}
            placeholder="invoice.paid"
          />
        </div>
        <div>
          <label htmlFor="f-state">State</label>
          <select
            id="f-state"
            value={draft.state}
            onChange={(event) => setDraft({ ...draft, state: event.target.value })}
          >
            <option value="">Any</option>
            <option value="pending">Pending (no attempt yet)</option>
            <option value="retrying">Retrying</option>
            <option value="set-aside">Set aside</option>
            <option value="processed">Processed</option>
          </select>
        </div>
        <div>
          <label htmlFor="f-event">Event id</label>
          <input
            id="f-event"
            value={draft.eventId}
            onChange={(event) => setDraft({ ...draft, eventId: event.target.value })}
            placeholder="evt_…"
          />
        </div>
        <div>
          <label htmlFor="f-from">Received from</label>
          <input
            id="f-from"
            type="datetime-local"
            value={draft.from}
            onChange={(event) => setDraft({ ...draft, from: event.target.value })}
          />
        </div>
        <div>
          <label htmlFor="f-to">Received until</label>
          <input
            id="f-to"
            type="datetime-local"
            value={draft.to}
            onChange={(event) => setDraft({ ...draft, to: event.target.value })}
          />
        </div>
        <div className="filter-buttons">
          <button type="submit" className="primary">
            Search
          </button>
        </div>
      </form>
      {error && (
        <p role="alert" className="error">
          {error.message}
        </p>
      )}
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
                  label: `Retry ${selectedRefs.length} selected event(s)`,
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
          {data.events.length} of {data.total} matching event(s), newest first.
        </p>
      )}
      <table className="events">
        <caption className="visually-hidden">Matching webhook events</caption>
        <thead>
          <tr>
            {canAct(me) && (
              <th scope="col">
                <span className="visually-hidden">Select</span>
              </th>
            )}
            <th scope="col">Event</th>
            <th scope="col">Type</th>
            <th scope="col">State</th>
            <th scope="col">Received</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last error</th>
          </tr>
        </thead>
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
              <td>{row.type}</td>
              <td>
                <Badge value={row.state} />
              </td>
              <td title={dateTime(row.receivedAt)}>{relative(row.receivedAt)}</td>
              <td>{row.attempts}</td>
              <td className="error-text">{row.lastError ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
