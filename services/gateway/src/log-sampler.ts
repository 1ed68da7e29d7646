/**
 * Lets at most `linesPerWindow` lines of one kind through per window, so a flood of rejected requests cannot turn
 * into a flood of log lines (disk, log shipping, and the CPU to write them). The first line after a suppressed
 * stretch says how many were left out.
 */
export class LogSampler {
  private windowStartedAt = Number.NEGATIVE_INFINITY;
  private written = 0;
  private suppressed = 0;

  constructor(private readonly options: { readonly linesPerWindow: number; readonly windowMs: number }) {}

  /**
   * Whether to write a line at `nowMs`: `undefined` to skip it, else the number of lines left out since the last
   * one written (to log along with it).
   */
  take(nowMs: number): number | undefined {
    if (nowMs - this.windowStartedAt >= this.options.windowMs) {
      this.windowStartedAt = nowMs;
      this.written = 0;
    }
    if (this.written >= this.options.linesPerWindow) {
      this.suppressed += 1;
      return undefined;
    }
    this.written += 1;
    const suppressed = this.suppressed;
    this.suppressed = 0;
    return suppressed;
  }
}
