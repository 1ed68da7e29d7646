import { Writable } from 'node:stream';
import type { CliConfig } from './config';
import { runCli } from './run-cli';

/** What one in-process run of the CLI printed, and its exit code. */
export interface CapturedCliRun {
  code: number;
  out: string;
  err: string;
}

/**
 * Runs `berth <argv…>` in-process against `config` and collects what it writes to stdout and stderr, for tests that
 * assert on the CLI's output and exit code without spawning it.
 */
export async function runCliCaptured(argv: string[], config: CliConfig): Promise<CapturedCliRun> {
  let out = '';
  let err = '';
  const sink = (append: (text: string) => void) =>
    new Writable({
      write(chunk, _encoding, done) {
        append(chunk.toString());
        done();
      },
    });
  const code = await runCli(argv, {
    config,
    stdout: sink((text) => (out += text)),
    stderr: sink((text) => (err += text)),
  });
  return { code, out, err };
}
