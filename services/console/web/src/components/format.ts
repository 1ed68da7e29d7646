/** "3 min ago", "in 2 h", from an ISO time. */
export function relative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '–';
  const ms = new Date(iso).getTime() - now;
  const abs = Math.abs(ms);
  const text =
    abs < 60_000
      ? `${Math.round(abs / 1000)} s`
      : abs < 3_600_000
        ? `${Math.round(abs / 60_000)} min`
        : abs < 86_400_000
          ? `${Math.round(abs / 3_600_000)} h`
          : `${Math.round(abs / 86_400_000)} d`;
  return ms < 0 ? `${text} ago` : `in ${text}`;
}

/** A local date and time, to the second, with the zone it is in ("02 Dec 2026, 05:12:04 UTC"). */
export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '–';
  return new Date(iso).toLocaleString(undefined, {
    year: 'numeric',
    month: 'short',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'short',
  });
}

/** "1 event", "3 events": a count with its noun, pluralised (`plural` when it is not just an added "s"). */
export function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}

/** Seconds as "4 min 10 s", "2 h 5 min". */
export function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}
