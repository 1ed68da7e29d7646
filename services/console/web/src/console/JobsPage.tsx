import { Fragment, useState } from 'react';
import { api } from '../api';
import { Badge } from '../components/Badge';
import { counted, dateTime, relative } from '../components/format';
import { Time } from '../components/Time';
import { Updated } from '../components/Updated';
import { useData } from '../components/useData';
import { useSelection } from '../components/useSelection';
import { canAct, type PageProps } from './ConsoleApp';
import { ErrorAlert } from '../components/ErrorAlert';
import { TableHead } from '../components/Table';
import type { QueueDepth as Depth, DeadLetter, Cron, QueueJob, CompletedJob } from '../../../src/api/contract';

/**
 * Jobs: queues with depths and, per queue, its waiting, running, delayed and last completed jobs; dead letters with
 * data and error (replay one, a selection or all); crons.
 */
export function JobsPage({ me, act }: PageProps) {
  const queues = useData(() => api<{ queues: Depth[] }>('berth-console-token', '/api/jobs/queues'), [], 10_000);
  const dead = useData(() => api<{ deadLetters: DeadLetter[] }>('berth-console-token', '/api/jobs/dead'), []);
  const crons = useData(
    () => api<{ crons: Cron[]; leader: { holder: string } | null }>('berth-console-token', '/api/jobs/crons'),
    [],
    30_000,
  );
  const { selected, toggle, clear } = useSelection<number>();
  const [open, setOpen] = useState<number | null>(null);
  const [queue, setQueue] = useState<string | null>(null);
  const reload = () => {
    clear();
    dead.reload();
    queues.reload();
  };
  return (
    <section aria-labelledby="jobs-title">
      <h1 id="jobs-title">Jobs</h1>
      <Updated at={queues.updatedAt} everyMs={10_000} loading={queues.loading} onRefresh={reload} />
      <h2>Queues</h2>
      <table>
        <caption className="visually-hidden">Queue depths</caption>
        <TableHead columns={['Queue', 'Waiting', 'Running', 'Redelivered', 'Delayed', 'Dead letters']} actions />
        <tbody>
          {queues.data?.queues.length === 0 && (
            <tr>
              <td colSpan={7}>No queues yet.</td>
            </tr>
          )}
          {queues.data?.queues.map((depth) => (
            <tr key={depth.queue}>
              <td>{depth.queue}</td>
              <td>{depth.pending}</td>
              <td>{depth.ackPending}</td>
              <td>{depth.redelivered}</td>
              <td>{depth.delayed}</td>
              <td>{depth.deadLetters}</td>
              <td className="row-actions">
                <button
                  type="button"
                  aria-pressed={queue === depth.queue}
                  onClick={() => setQueue(queue === depth.queue ? null : depth.queue)}
                >
                  Jobs of {depth.queue}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {queue && <QueueJobsTable key={queue} queue={queue} me={me} act={act} />}
      {queue && <CompletedJobsTable key={`completed-${queue}`} queue={queue} />}

      <h2>Dead letters</h2>
      <ErrorAlert error={dead.error} />
      {canAct(me) && (
        <div className="toolbar" role="group" aria-label="Dead-letter actions">
          <button
            type="button"
            disabled={selected.size === 0}
            onClick={() =>
              act(
                {
                  action: 'jobs.replay-dead',
                  params: { ids: [...selected] },
                  label: `Replay ${counted(selected.size, 'selected dead letter')}`,
                },
                reload,
              )
            }
          >
            Replay selected ({selected.size})
          </button>
          <button
            type="button"
            disabled={(dead.data?.deadLetters.length ?? 0) === 0}
            onClick={() =>
              act({ action: 'jobs.replay-dead', params: { all: true }, label: 'Replay every dead letter' }, reload)
            }
          >
            Replay all…
          </button>
        </div>
      )}
      <table>
        <caption className="visually-hidden">Dead-lettered jobs, latest first</caption>
        <TableHead
          columns={['Id', 'Queue / job', 'Reason', 'Attempts', 'Failed', 'Error']}
          select={canAct(me)}
          actions
        />
        <tbody>
          {dead.data?.deadLetters.length === 0 && (
            <tr>
              <td colSpan={8}>No dead letters.</td>
            </tr>
          )}
          {dead.data?.deadLetters.map((letter) => (
            <Fragment key={letter.id}>
              <tr>
                {canAct(me) && (
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`Select dead letter ${letter.id}`}
                      checked={selected.has(letter.id)}
                      onChange={() => toggle(letter.id)}
                      disabled={letter.unreadable}
                    />
                  </td>
                )}
                <td>{letter.id}</td>
                <td>
                  {letter.queue} / {letter.name}
                </td>
                <td>
                  <Badge value={letter.reason} />
                </td>
                <td>
                  {letter.attempts} / {letter.retryLimit + 1}
                </td>
                <td title={dateTime(letter.failedAt)}>{relative(letter.failedAt)}</td>
                <td className="error-text">
                  {letter.error.name}: {letter.error.message}
                </td>
                <td className="row-actions">
                  <button
                    type="button"
                    aria-expanded={open === letter.id}
                    aria-controls={`dead-${letter.id}`}
                    onClick={() => setOpen(open === letter.id ? null : letter.id)}
                  >
                    {open === letter.id ? 'Hide' : 'Details'}
                  </button>
                  {canAct(me) && !letter.unreadable && (
                    <button
                      type="button"
                      onClick={() =>
                        act(
                          {
                            action: 'jobs.replay-dead',
                            params: { ids: [letter.id] },
                            label: `Replay dead letter ${letter.id} (${letter.name})`,
                          },
                          reload,
                        )
                      }
                    >
                      Replay…
                    </button>
                  )}
                </td>
              </tr>
              {open === letter.id && (
                <tr id={`dead-${letter.id}`}>
                  <td colSpan={8}>
                    <h3>Data of job {letter.jobId}</h3>
                    <pre className="json">{JSON.stringify(letter.data, null, 2)}</pre>
                    <h3>Error</h3>
                    <pre className="json">{letter.error.stack ?? `${letter.error.name}: ${letter.error.message}`}</pre>
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
        </tbody>
      </table>

      <h2>Crons</h2>
      <p>
        Scheduler leader: <strong>{crons.data?.leader?.holder ?? 'none (ticks are not being emitted)'}</strong>
      </p>
      <table>
        <caption className="visually-hidden">Registered crons</caption>
        <TableHead columns={['Name', 'Schedule', 'Last tick', 'Next tick', 'Queue', 'Owner']} actions={canAct(me)} />
        <tbody>
          {crons.data?.crons.length === 0 && (
            <tr>
              <td colSpan={canAct(me) ? 8 : 7}>No crons registered.</td>
            </tr>
          )}
          {crons.data?.crons.map((cron) => (
            <tr key={cron.name}>
              <td>{cron.name}</td>
              <td>
                {cron.words}
                <div className="hint">
                  <code>{cron.pattern}</code>
                </div>
              </td>
              <td>
                <Time iso={cron.lastTick} empty="never" />
              </td>
              <td data-testid="cron-last-run">
                {cron.lastRun ? (
                  <>
                    <Badge value={cron.lastRun.state === 'not-found' ? 'finished' : cron.lastRun.state} />
                    <div className="hint">{cron.lastRun.reason}</div>
                  </>
                ) : (
                  '–'
                )}
              </td>
              <td>{cron.error ? <span className="error-text">{cron.error}</span> : <Time iso={cron.nextTick} />}</td>
              <td>{cron.queue}</td>
              <td>{cron.owner}</td>
              {canAct(me) && (
                <td className="row-actions">
                  <button
                    type="button"
                    onClick={() =>
                      act(
                        { action: 'crons.run-now', params: { name: cron.name }, label: `Run ${cron.name} now` },
                        crons.reload,
                      )
                    }
                  >
                    Run now…
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** One queue's waiting, running and delayed jobs (what JetStream still holds), with their data; cancel one, run a delayed one now. */
function QueueJobsTable({ queue, me, act }: PageProps & { queue: string }) {
  const { data, error, reload, loading, updatedAt } = useData(
    () =>
      api<{ jobs: QueueJob[]; truncated: boolean }>(
        'berth-console-token',
        `/api/jobs/queues/${encodeURIComponent(queue)}/jobs`,
      ),
    [queue],
    10_000,
  );
  return (
    <section aria-labelledby="queue-jobs-title">
      <h3 id="queue-jobs-title">Jobs of {queue}</h3>
      <Updated at={updatedAt} everyMs={10_000} loading={loading} onRefresh={reload} />
      <p className="hint">
        What JetStream holds: jobs waiting for a worker, with one (running, or between two attempts), and delayed.
        Completed ones are listed below them; failed ones end in the dead letters.
        {data?.truncated ? ' Only the first 50 messages of each place are shown.' : ''}
      </p>
      <ErrorAlert error={error} />
      <table>
        <caption className="visually-hidden">Jobs of {queue}</caption>
        <TableHead columns={['Job', 'State', 'Attempts', 'Added', 'Due', 'Data']} actions={canAct(me)} />
        <tbody>
          {data?.jobs.length === 0 && (
            <tr>
              <td colSpan={canAct(me) ? 7 : 6}>No waiting, running or delayed job.</td>
            </tr>
          )}
          {data?.jobs.map((job) => (
            <tr key={job.jobId}>
              <td>
                {job.name}
                <div className="hint">
                  <code>{job.jobId}</code>
                </div>
              </td>
              <td>
                <Badge value={job.cancelledAt ? 'cancelled' : job.state} />
                {job.waitReason ? <span className="hint"> ({job.waitReason})</span> : null}
              </td>
              <td>
                {job.attemptsMade} of {job.retryLimit + 1}
              </td>
              <td>
                <Time iso={job.addedAt} />
              </td>
              <td>{job.state === 'delayed' ? <Time iso={job.notBefore} /> : '–'}</td>
              <td>
                <pre className="json small">{JSON.stringify(job.data, null, 2)}</pre>
              </td>
              {canAct(me) && (
                <td className="row-actions">
                  {job.state === 'delayed' && !job.cancelledAt && (
                    <button
                      type="button"
                      onClick={() =>
                        act(
                          {
                            action: 'jobs.promote',
                            params: { queue, jobId: job.jobId },
                            label: `Run delayed job ${job.jobId} of ${queue} now`,
                          },
                          reload,
                        )
                      }
                    >
                      Run now…
                    </button>
                  )}
                  {!job.cancelledAt && (
                    <button
                      type="button"
                      onClick={() =>
                        act(
                          {
                            action: 'jobs.cancel',
                            params: { queue, jobId: job.jobId },
                            label: `Cancel job ${job.jobId} of ${queue}`,
                          },
                          reload,
                        )
                      }
                    >
                      Cancel…
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** One queue's last completed jobs, newest first, as workers recorded them in `JOBS_COMPLETED`. */
function CompletedJobsTable({ queue }: { queue: string }) {
  const { data, error, reload, loading, updatedAt } = useData(
    () =>
      api<{ completed: CompletedJob[] }>(
        'berth-console-token',
        `/api/jobs/queues/${encodeURIComponent(queue)}/completed`,
      ),
    [queue],
    10_000,
  );
  return (
    <section aria-labelledby="completed-jobs-title">
      <h3 id="completed-jobs-title">Completed jobs of {queue}</h3>
      <Updated at={updatedAt} everyMs={10_000} loading={loading} onRefresh={reload} />
      <p className="hint">
        The last 50 that completed, newest first (the stream keeps the last 100 of each queue for 7 days).
      </p>
      <ErrorAlert error={error} />
      <table>
        <caption className="visually-hidden">Completed in {queue}, newest first</caption>
        <TableHead columns={['Job', 'Outcome', 'Attempt', 'Added', 'Completed', 'Took', 'Data']} />
        <tbody>
          {data?.completed.length === 0 && (
            <tr>
              <td colSpan={7}>No completed job recorded.</td>
            </tr>
          )}
          {data?.completed.map((job) => (
            <tr key={job.id}>
              <td>
                {job.name}
                <div className="hint">
                  <code>{job.jobId}</code>
                </div>
              </td>
              <td>
                <Badge value={job.outcome} />
              </td>
              <td>
                {job.attempt} of {job.retryLimit + 1}
              </td>
              <td>
                <Time iso={job.addedAt} />
              </td>
              <td>
                <Time iso={job.completedAt} />
              </td>
              <td>{milliseconds(job.durationMs)}</td>
              <td>
                {job.dataOmitted ? (
                  <span className="hint">over 16 KiB, not recorded</span>
                ) : (
                  <pre className="json small">{JSON.stringify(job.data, null, 2)}</pre>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** A duration in ms as "850 ms" or "4.2 s". */
function milliseconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}
