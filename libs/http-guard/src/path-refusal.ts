/** Why {@link pathRefusal} refuses a path: each is a spelling some reader (router, proxy, file server) resolves apart. */
export type PathRefusal =
  | 'not-absolute'
  | 'empty-segment'
  | 'trailing-slash'
  | 'dot-segment'
  | 'semicolon'
  | 'backslash'
  | 'not-printable-ascii'
  | 'bad-escape'
  | 'encoded-unreserved'
  | 'encoded-separator'
  | 'encoded-control';

const HEX = /^[0-9A-Fa-f]{2}$/;

/** RFC 3986 unreserved characters: a percent-encoded one is the same path spelled another way. */
function isUnreserved(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) ||
    code === 0x2d ||
    code === 0x2e ||
    code === 0x5f ||
    code === 0x7e
  );
}

/**
 * Why the raw request path `path` (no query) is not in its one canonical spelling, or undefined when it is. A
 * canonical path starts with `/`, has no empty segment (`//`) and no trailing slash (but `/` itself), no `.` or `..`
 * segment, no `;`, no backslash, only printable ASCII, and percent-escapes that are well formed and encode neither
 * an unreserved character (`%61` is `a`, `%2e` is `.`), nor a separator (`%2F`, `%5C`), nor a control character.
 * Other escapes (`%20`, `%3A`) stay: they can only sit inside a parameter, which the router decodes once.
 */
export function pathRefusal(path: string): PathRefusal | undefined {
  if (path.charCodeAt(0) !== 0x2f) return 'not-absolute';
  if (path.length === 1) return undefined;
  if (path.charCodeAt(path.length - 1) === 0x2f) return 'trailing-slash';
  let segmentStart = 1;
  for (let index = 1; index <= path.length; index++) {
    const code = index < path.length ? path.charCodeAt(index) : 0x2f;
    if (code === 0x2f) {
      const segment = path.slice(segmentStart, index);
      if (segment === '') return 'empty-segment';
      if (segment === '.' || segment === '..') return 'dot-segment';
      segmentStart = index + 1;
      continue;
    }
    if (code === 0x3b) return 'semicolon';
    if (code === 0x5c) return 'backslash';
    if (code < 0x21 || code > 0x7e) return 'not-printable-ascii';
    if (code === 0x25) {
      const hex = path.slice(index + 1, index + 3);
      if (!HEX.test(hex)) return 'bad-escape';
      const decoded = Number.parseInt(hex, 16);
      if (isUnreserved(decoded)) return 'encoded-unreserved';
      if (decoded === 0x2f || decoded === 0x5c) return 'encoded-separator';
      // Bytes of UTF-8 (0x80 and up) may spell a parameter; C0 controls and DEL never do.
      if (decoded < 0x20 || decoded === 0x7f) return 'encoded-control';
      index += 2;
    }
  }
  return undefined;
}
