import { Writable } from 'node:stream';

/**
 * Characters a terminal acts on instead of showing: C0 controls (ESC starts the sequences that clear the screen,
 * retitle the window or write to the clipboard; CR and BS overwrite text), DEL, the C1 controls (U+009B is an 8-bit
 * CSI) and the bidirectional overrides that make text read other than it is.
 */
const TERMINAL_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const TERMINAL_CONTROLS_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

function visible(character: string): string {
  const code = character.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Shows every terminal control character of `text` as `\xNN` / `\uNNNN`, newlines included (for one-line cells). */
export function escapeControlCharacters(text: string): string {
  return text.replace(TERMINAL_CONTROLS, visible);
}

/**
 * Wraps an output stream so that nothing written through it reaches the terminal as a control character: every one
 * but the newline is shown as `\xNN` / `\uNNNN`. Event ids, types and errors come from providers and customers;
 * the CLI writes all of its output through this. JSON stays valid: JSON.stringify has already escaped the C0
 * controls, and the others are escaped the same way JSON would (as `\uNNNN`) by {@link formatJson}.
 */
export function terminalSafe(target: NodeJS.WritableStream): NodeJS.WritableStream {
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      target.write(String(chunk).replace(TERMINAL_CONTROLS_BUT_NEWLINE, visible));
      done();
    },
  });
}

/** Formats rows as an aligned text table with a header line; control characters in cells are escaped. */
export function formatTable(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((row) => row.map((cell) => escapeControlCharacters(String(cell))))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  return (
    cells
      .map((row) =>
        row
          .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column])))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

/** Writes a value as indented JSON, with every terminal control character as a `\uNNNN` escape. */
export function formatJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2).replace(TERMINAL_CONTROLS_BUT_NEWLINE, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
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
