/** Where a session's bearer token is kept: this tab only, gone when it closes. Never a cookie (no CSRF). */
export type TokenSlot = 'berth-console-token' | 'berth-portal-token';

/** An API error with its status and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function getToken(slot: TokenSlot): string | null {
  return sessionStorage.getItem(slot);
}

export function setToken(slot: TokenSlot, token: string | null): void {
  if (token) sessionStorage.setItem(slot, token);
  else sessionStorage.removeItem(slot);
}

/** Calls the console API with the slot's token; JSON in, JSON out. */
export async function api<T>(
  slot: TokenSlot,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<T> {
  const token = getToken(slot);
  const response = await fetch(path, {
    method: init.method ?? 'GET',
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  const text = await response.text();
  const body = text ? (JSON.parse(text) as unknown) : null;
  if (!response.ok) {
    const error = (body ?? {}) as { error?: string; message?: string };
    throw new ApiError(response.status, error.error ?? 'error', error.message ?? `HTTP ${response.status}`);
  }
  return body as T;
}

/** A query string from the set values. */
export function query(values: Record<string, string | number | undefined | null>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values))
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}
