import { useEffect, useState } from 'react';

/** Re-renders every `intervalMs`, answering the current time: for texts like "updated 4 s ago". */
export function useNow(intervalMs = 1000): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/**
 * "Updated 4 s ago · refreshes every 10 s", and a button to refresh now: how fresh a self-refreshing page is. The
 * text is not a live region (it changes every second); the page's data is what is announced.
 */
export function Updated({
  at,
  everyMs,
  loading,
  onRefresh,
  paused,
}: {
  at: number | undefined;
  everyMs: number;
  loading: boolean;
  onRefresh: () => void;
  paused?: string;
}) {
  const now = useNow();
  const seconds = at === undefined ? null : Math.max(0, Math.round((now - at) / 1000));
  return (
    <p className="updated hint" data-testid="updated">
      {seconds === null ? 'Loading…' : `Updated ${seconds} s ago`}
      {paused ? ` · ${paused}` : ` · refreshes every ${Math.round(everyMs / 1000)} s`}
      {loading && seconds !== null ? ' · refreshing…' : ''}{' '}
      <button type="button" className="link-button" onClick={onRefresh}>
        Refresh now
      </button>
    </p>
  );
}
