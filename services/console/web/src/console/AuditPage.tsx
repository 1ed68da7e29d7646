import { api } from '../api';
import { Badge } from '../components/Badge';
import { dateTime } from '../components/format';
import { useData } from '../components/useData';
import type { PageProps } from './ConsoleApp';
import { ErrorAlert } from '../components/ErrorAlert';
import { TableHead } from '../components/Table';
import type { AuditEntry as Entry } from '../../../src/api/contract';

/** Audit: every previewed, confirmed, refused or failed action, and every read of unmasked personal data, with who. */
export function AuditPage(_props: PageProps) {
  const { data, error } = useData(() => api<{ entries: Entry[] }>('berth-console-token', '/api/audit'), [], 15_000);
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit</h1>
      <ErrorAlert error={error} />
      <table>
        <caption className="visually-hidden">Latest actions, newest first</caption>
        <TableHead columns={['When', 'Who', 'Action', 'Outcome', 'What']} />
        <tbody>
          {data?.entries.map((entry) => (
            <tr key={entry._id}>
              <td>{dateTime(entry.at)}</td>
              <td>
                {entry.actor} ({entry.role})
              </td>
              <td>
                <code>{entry.action}</code>
              </td>
              <td>
                <Badge value={entry.outcome} />
              </td>
              <td>{entry.summary}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
