import type { ServiceHealth } from '../api/contract';

export type { ServiceHealth };

/** Asks every service's `/readyz` at once, each with a deadline, so one hung service slows nothing down. */
export async function servicesHealth(urls: Record<string, string>, timeoutMs = 2000): Promise<ServiceHealth[]> {
  return Promise.all(
    Object.entries(urls).map(async ([name, url]): Promise<ServiceHealth> => {
      const started = performance.now();
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
        await response.arrayBuffer();
        return {
          name,
          url,
          status: response.ok ? 'ready' : 'not-ready',
          httpStatus: response.status,
          latencyMs: Math.round(performance.now() - started),
          error: null,
        };
      } catch (error) {
        return { name, url, status: 'unreachable', httpStatus: null, latencyMs: null, error: (error as Error).message };
      }
    }),
  );
}
