/**
 * Deepest nesting of arrays and objects a verified body may have. Deeper JSON parses, but recursive code after it
 * does not survive it: `JSON.stringify` throws a RangeError on a few thousand levels, and MongoDB refuses documents
 * nested more than 100 levels deep. No provider's event comes near 64.
 */
export const MAX_JSON_NESTING_DEPTH = 64;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Counts `{` and `[` up to `limit + 1`: a text with no more openers than the limit cannot nest deeper. */
function countOpeners(text: string, limit: number): number {
  let count = 0;
  for (const opener of ['{', '[']) {
    for (let at = text.indexOf(opener); at !== -1 && count <= limit; at = text.indexOf(opener, at + 1)) count += 1;
  }
  return count;
}

/**
 * True when the JSON text nests arrays and objects deeper than `maxDepth`. Brackets inside strings do not count.
 * Most bodies have fewer brackets than the limit in all and are answered by a native search alone.
 */
export function nestsDeeperThan(text: string, maxDepth: number): boolean {
  if (countOpeners(text, maxDepth) <= maxDepth) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
    }
  }
  return false;
}
