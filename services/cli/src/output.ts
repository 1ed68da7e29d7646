/** Formats rows as an aligned text table with a header line. */
export function formatTable(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((row) => row.map((cell) => String(cell)))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  return cells.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]))).join('  ').trimEnd()).join('\n') + '\n';
}

/** Writes a value as indented JSON. */
export function formatJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Cuts text to `max` characters on one line. */
export function truncate(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** How {@link writeList} shows a list of items. */
export interface ListOutput<T> {
  /** `--json`: the items as indented JSON, nothing else. */
  readonly json: boolean;
  /** The line written when there are no items. */
  readonly empty: string;
  readonly headers: string[];
  readonly row: (item: T) => (string | number)[];
  /** Text written after the table, when there are items. */
  readonly footer?: (items: T[]) => string;
}

/** Writes a list command's result: as JSON, as the `empty` line, or as a table and its footer. */
export function writeList<T>(stdout: NodeJS.WritableStream, items: T[], output: ListOutput<T>): void {
  if (output.json) stdout.write(formatJson(items));
  else if (items.length === 0) stdout.write(`${output.empty}\n`);
  else stdout.write(formatTable(output.headers, items.map(output.row)) + (output.footer?.(items) ?? ''));
}
