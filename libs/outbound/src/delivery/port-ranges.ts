/** An inclusive range of TCP ports. */
export interface PortRange {
  readonly from: number;
  readonly to: number;
}

/** The ports deliveries may connect to unless configured otherwise: HTTP and HTTPS. */
export const DEFAULT_ALLOWED_PORTS: readonly string[] = ['80', '443'];

function port(text: string, whole: string): number {
  const value = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(value >= 1 && value <= 65535))
    throw new RangeError(`not a port or port range (1-65535): ${JSON.stringify(whole)}`);
  return value;
}

/**
 * Parses `"443"` or `"8000-8999"`.
 * @throws RangeError for anything else: a typo in an allow-list must stop the start.
 */
export function parsePortRange(text: string): PortRange {
  const parts = text.trim().split('-');
  if (parts.length > 2) throw new RangeError(`not a port or port range (1-65535): ${JSON.stringify(text)}`);
  const from = port(parts[0] ?? '', text);
  const to = parts.length === 2 ? port(parts[1] ?? '', text) : from;
  if (to < from) throw new RangeError(`port range runs backwards: ${JSON.stringify(text)}`);
  return { from, to };
}

/** The port a URL connects to: its explicit port, or its scheme's. */
export function effectivePort(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}
