import { useState } from 'react';
import { api, query } from '../api';
import { Badge } from '../components/Badge';
import { Chart } from '../components/Chart';
import { dateTime, duration, relative } from '../components/format';
import { useData } from '../components/useData';
import { Updated } from '../components/Updated';
import { Link } from '../router';
import type { PageProps } from './ConsoleApp';
import { ErrorAlert } from '../components/ErrorAlert';
import { TableHead } from '../components/Table';
import type { Overview } from '../../../src/api/contract';

/** How often the page refreshes itself. */
const REFRESH_MS = 15_000;

/** The index of the bucket holding `since` (buckets are their start times, oldest first); 0 when it is older. */
function firstSampledBucket(buckets: string[], since: string): number {
  const at = new Date(since).getTime();
  let index = 0;
  while (index + 1 < buckets.length && new Date(buckets[index + 1]).getTime() <= at) index += 1;
  return index;
}

/** Overview: per provider and per queue, the charts of the last hour or day; services, consumers and the scheduler. */
export function OverviewPage(_props: PageProps) {
  const [window, setWindow] = useState<'hour' | 'day'>('hour');
  const { data, error, loading, updatedAt, reload } = useData(
    () => api<Overview>('berth-console-token', `/api/overview${query({ window })}`),
    [window],
    REFRESH_MS,
  );
  // The job charts start at the bucket the console's sampling began in: before it there is no data, only zeros.
  const sampledFrom = data ? firstSampledBucket(data.window.buckets, data.queues.sampledSince) : 0;
  const jobBuckets = data?.window.buckets.slice(sampledFrom) ?? [];
  const sampled = (values: number[]) => values.slice(sampledFrom);
  const active = (data?.queues.series ?? []).filter(
    (series) =>
      [series.completedPerMinute, series.failures, series.backlog, series.running].some((values) =>
        sampled(values).some((value) => value > 0),
      ) || series.current.pending + series.current.ackPending + series.current.delayed + series.current.deadLetters > 0,
  );
  const quiet = (data?.queues.series ?? []).filter((series) => !active.includes(series));
  return (
    <section aria-labelledby="overview-title">
      <div className="page-head">
        <h1 id="overview-title">Overview</h1>
        <fieldset className="segmented">
          <legend className="visually-hidden">Time range of the charts</legend>
          {(['hour', 'day'] as const).map((name) => (
            <label key={name}>
              <input
                type="radio"
                name="window"
                value={name}
                checked={window === name}
                onChange={() => setWindow(name)}
              />
              Last {name}
            </label>
          ))}
        </fieldset>
      </div>
      <Updated at={updatedAt} everyMs={REFRESH_MS} loading={loading} onRefresh={reload} />
      <ErrorAlert error={error} />
      {data && (
        <>
          <div className="cards">
            <div className="card">
              <h2>Scheduler leader</h2>
              <p className="big">{data.scheduler.leader ?? <Badge value="none" />}</p>
              <p className="hint">
                {data.scheduler.leader
                  ? `renewed ${relative(data.scheduler.renewedAt)}`
                  : 'No scheduler holds the lease: cron ticks are not being emitted.'}
              </p>
            </div>
            <div className="card">
              <h2>Unprocessed webhook events</h2>
              <p className="big">{data.webhooks.providers.reduce((sum, p) => sum + p.current.unprocessed, 0)}</p>
              <p className="hint">
                <Link to="/events?state=set-aside">
                  {data.webhooks.providers.reduce((sum, p) => sum + p.current.setAside, 0)} set aside
                </Link>
              </p>
            </div>
            <div className="card">
              <h2>Dead-lettered jobs</h2>
              <p className="big">{data.queues.series.reduce((sum, q) => sum + q.current.deadLetters, 0)}</p>
            </div>
            <div className="card">
              <h2>Services</h2>
              <p className="big">
                {data.services.filter((s) => s.status === 'ready').length} / {data.services.length} ready
              </p>
            </div>
          </div>

          <h2>Webhooks by provider</h2>
          {data.webhooks.partial && <p className="hint">Charts cover the first 100,000 rows only.</p>}
          {data.webhooks.providers.length === 0 && <p>No webhook events in this window.</p>}
          {data.webhooks.providers.map((series) => (
            <article key={series.provider} className="chart-row" aria-label={`Provider ${series.provider}`}>
              <h3>
                {series.provider}{' '}
                <span className="hint">
                  {series.current.unprocessed} unprocessed, oldest {duration(series.current.oldestUnprocessedSeconds)}
                </span>
              </h3>
              <div className="charts">
                <Chart
                  title="Events per minute"
                  buckets={data.window.buckets}
                  lines={[
                    { label: 'received', values: series.receivedPerMinute, tone: 'a' },
                    { label: 'processed', values: series.processedPerMinute, tone: 'b' },
                  ]}
                />
                <Chart
                  title="Failing (last attempt failed)"
                  buckets={data.window.buckets}
                  lines={[{ label: 'failures', values: series.failures, tone: 'c' }]}
                />
                <Chart
                  title="Backlog (unprocessed)"
                  buckets={data.window.buckets}
                  lines={[{ label: 'backlog', values: series.backlog, tone: 'd' }]}
                />
                <Chart
                  title="Oldest unprocessed"
                  buckets={data.window.buckets}
                  format={duration}
                  lines={[{ label: 'age', values: series.oldestUnprocessedSeconds, tone: 'c' }]}
                />
              </div>
            </article>
          ))}

          <h2>Jobs by queue</h2>
          <p className="hint">
            Sampled by the console since {dateTime(data.queues.sampledSince)}: the charts start there (JetStream keeps
            no history of a consumer). Queues with no job since then are listed below the charts.
          </p>
          {data.queues.series.length === 0 && <p>No queues yet.</p>}
          {active.map((series) => (
            <article key={series.queue} className="chart-row" aria-label={`Queue ${series.queue}`}>
              <h3>
                {series.queue}{' '}
                <span className="hint">
                  {series.current.pending} waiting, {series.current.ackPending} running, {series.current.delayed}{' '}
                  delayed, {series.current.deadLetters} dead
                </span>
              </h3>
              <div className="charts">
                <Chart
                  title="Job messages finished per minute (done or dead-lettered)"
                  buckets={jobBuckets}
                  lines={[{ label: 'finished', values: sampled(series.completedPerMinute), tone: 'b' }]}
                />
                <Chart
                  title="Dead-lettered"
                  buckets={jobBuckets}
                  lines={[{ label: 'failures', values: sampled(series.failures), tone: 'c' }]}
                />
                <Chart
                  title="Backlog and running"
                  buckets={jobBuckets}
                  lines={[
                    { label: 'waiting + delayed', values: sampled(series.backlog), tone: 'd' },
                    { label: 'running', values: sampled(series.running), tone: 'a' },
                  ]}
                />
              </div>
            </article>
          ))}
          {quiet.length > 0 && (
            <p data-testid="quiet-queues">
              <strong>Quiet since sampling began</strong> (nothing waiting, running, delayed, finished or dead):{' '}
              {quiet.map((series) => series.queue).join(', ')}.
            </p>
          )}

          <div className="two-columns">
            <div>
              <h2>Services</h2>
              <table>
                <caption className="visually-hidden">Readiness of each service</caption>
                <TableHead columns={['Service', 'State', 'Answer']} />
                <tbody>
                  {data.services.length === 0 && (
                    <tr>
                      <td colSpan={3}>None configured (CONSOLE_HEALTH_URLS).</td>
                    </tr>
                  )}
                  {data.services.map((service) => (
                    <tr key={service.name}>
                      <td>{service.name}</td>
                      <td>
                        <Badge value={service.status} />
                      </td>
                      <td>
                        {service.httpStatus ?? service.error}
                        {service.latencyMs !== null ? ` · ${service.latencyMs} ms` : ''}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <div>
              <h2>Consumer lag</h2>
              <table>
                <caption className="visually-hidden">Durable consumers and their lag</caption>
                <TableHead columns={['Stream / consumer', 'Pending', 'Ack pending', 'Redelivered', 'Last ack']} />
                <tbody>
                  {data.consumers.map((consumer) => (
                    <tr key={`${consumer.stream}/${consumer.consumer}`}>
                      <td>
                        {consumer.stream} / {consumer.consumer}
                      </td>
                      <td>{consumer.pending}</td>
                      <td>{consumer.ackPending}</td>
                      <td>{consumer.redelivered}</td>
                      <td>{relative(consumer.lastActive)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </div>
        </>
      )}
    </section>
  );
}
