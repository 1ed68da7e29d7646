/** A date as ISO text, or `-`. */
export function isoOrDash(date: Date | null | undefined): string {
  return date ? date.toISOString() : '-';
}
