import { useState } from 'react';
import { api, query } from '../api';
import { Badge } from '../components/Badge';
import { DeliveryLog } from '../components/DeliveryLog';
import { counted } from '../components/format';
import { SetEnabledButton } from '../components/SetEnabledButton';
import { EventType, Time } from '../components/Time';
import { Updated } from '../components/Updated';
import { useData } from '../components/useData';
import { ErrorAlert } from '../components/ErrorAlert';
import { Link } from '../router';
import { canAct, type PageProps } from './ConsoleApp';
import type { Endpoint, Delivery, SentRequest } from '../../../src/api/contract';

/** How often the page refreshes itself. */
const REFRESH_MS = 10_000;

/** One endpoint: its settings and state, how its latest deliveries went, its delivery log by event type; actions. */
export function EndpointPage({ me, act, endpointId }: PageProps & { endpointId: string }) {
  const [eventType, setEventType] = useState('');
  const endpoint = useData(
    () => api<Endpoint>('berth-console-token', `/api/outbound/endpoints/${encodeURIComponent(endpointId)}`),
    [endpointId],
    REFRESH_MS,
  );
  const deliveries = useData(
    () =>
      api<{ deliveries: Delivery[] }>(
        'berth-console-token',
        `/api/outbound/deliveries${query({ endpointId, eventType, limit: 100 })}`,
      ),
    [endpointId, eventType],
    REFRESH_MS,
  );
  const reload = () => {
    endpoint.reload();
    deliveries.reload();
  };
  const shown = deliveries.data?.deliveries ?? [];
  const byStatus = shown.reduce<Record<string, number>>(
    (counts, delivery) => ({ ...counts, [delivery.status]: (counts[delivery.status] ?? 0) + 1 }),
    {},
  );
  const types = [...new Set(shown.map((delivery) => delivery.eventType))].sort();
  const data = endpoint.data;
  return (
    <section aria-labelledby="endpoint-title">
      <p>
        <Link to="/outbound">← Outbound</Link>
      </p>
      <h1 id="endpoint-title">{data?.url ?? endpointId}</h1>
      <Updated
        at={deliveries.updatedAt}
        everyMs={REFRESH_MS}
        loading={endpoint.loading || deliveries.loading}
        onRefresh={reload}
      />
      <ErrorAlert error={endpoint.error ?? deliveries.error} />
      {data && (
        <>
          <dl className="facts">
            <div>
              <dt>State</dt>
              <dd>
                <Badge value={data.enabled ? 'enabled' : 'disabled'} />
                {data.disabledReason ? ` (${data.disabledReason})` : ''}
              </dd>
            </div>
            <div>
              <dt>Workspace</dt>
              <dd>{data.workspaceId}</dd>
            </div>
            <div>
              <dt>Id</dt>
              <dd>
                <code>{data.id}</code>
              </dd>
            </div>
            <div>
              <dt>Description</dt>
              <dd>{data.description || '–'}</dd>
            </div>
            <div>
              <dt>Failing since</dt>
              <dd>
                <Time iso={data.failingSince} />
              </dd>
            </div>
            <div>
              <dt>Event types</dt>
              <dd>
                {data.eventTypes.length
                  ? data.eventTypes.map((type, index) => (
                      <span key={type}>
                        {index > 0 && ', '}
                        <EventType type={type} />
                      </span>
                    ))
                  : 'all'}
              </dd>
            </div>
            <div>
              <dt>Secrets signing</dt>
              <dd>{data.activeSecrets}</dd>
            </div>
            <div>
              <dt>Rate limit</dt>
              <dd>{data.rateLimitPerSecond ? `${data.rateLimitPerSecond}/s` : 'none'}</dd>
            </div>
            <div>
              <dt>Order</dt>
              <dd>{data.ordered ? 'in order, one at a time' : 'unordered'}</dd>
            </div>
          </dl>
          <p data-testid="endpoint-summary">
            Of its latest {counted(shown.length, 'delivery', 'deliveries')}
            {eventType ? ` of type ${eventType}` : ''}:{' '}
            {Object.entries(byStatus)
              .map(([status, count]) => `${count} ${status}`)
              .join(', ') || 'none yet'}
            .
          </p>
          {canAct(me) && (
            <div className="toolbar">
              <SetEnabledButton action="outbound.set-enabled" endpoint={data} act={act} then={reload} />
            </div>
          )}
        </>
      )}
      <h2>Deliveries</h2>
      <div className="filters compact">
        <div>
          <label htmlFor="ep-type">Event type</label>
          <select id="ep-type" value={eventType} onChange={(event) => setEventType(event.target.value)}>
            <option value="">Any</option>
            {[...new Set([...types, ...(eventType ? [eventType] : [])])].map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
        </div>
      </div>
      <DeliveryLog
        deliveries={shown}
        endpointLabel={() => data?.url ?? endpointId}
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
