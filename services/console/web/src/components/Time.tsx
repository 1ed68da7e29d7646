import { dateTime, relative } from './format';

/**
 * A time as "3 min ago" / "in 20 s", with the absolute local time and its zone on hover and for assistive
 * technology (`title`, and the machine-readable `dateTime`); `absolute` shows the absolute time instead.
 */
export function Time({
  iso,
  absolute = false,
  empty = '–',
}: {
  iso: string | null | undefined;
  absolute?: boolean;
  empty?: string;
}) {
  if (!iso) return <>{empty}</>;
  const full = dateTime(iso);
  return (
    <time dateTime={iso} title={full}>
      {absolute ? full : relative(iso)}
    </time>
  );
}

/** An event type (`customer.subscription.updated`) that wraps only after its dots and underscores, never mid-word. */
export function EventType({ type }: { type: string }) {
  const parts = type.split(/(?<=[._])/);
  return (
    <span className="event-type">
      {parts.map((part, index) => (
        <span key={index}>
          {part}
          {index < parts.length - 1 && <wbr />}
        </span>
      ))}
    </span>
  );
}
