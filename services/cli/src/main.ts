/** `berth …`: the operator CLI (see run-cli.ts). */
import { loadCliConfig } from './config';
import { runCli } from './run-cli';

runCli(process.argv.slice(2), { config: loadCliConfig(), stdout: process.stdout, stderr: process.stderr }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`berth: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
