import { useCallback, useEffect, useState } from 'react';

/**
 * Loads data, reloads on `deps` change, on `reload()` and every `refreshMs` (when set); `updatedAt` is when the data
 * shown was last loaded (for "updated N s ago").
 */
export function useData<T>(
  load: () => Promise<T>,
  deps: unknown[],
  refreshMs?: number,
): {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  updatedAt: number | undefined;
  reload: () => void;
} {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean; updatedAt?: number }>({
    loading: true,
  });
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((value) => value + 1), []);
  useEffect(() => {
    let live = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false, updatedAt: Date.now() }),
      (error: Error) => live && setState((previous) => ({ ...previous, error, loading: false })),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  useEffect(() => {
    if (!refreshMs) return undefined;
    const timer = setInterval(reload, refreshMs);
    return () => clearInterval(timer);
  }, [refreshMs, reload]);
  return { data: state.data, error: state.error, loading: state.loading, updatedAt: state.updatedAt, reload };
}
