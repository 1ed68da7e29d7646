import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { BerthLogger } from '@berth/logger';

/** The console's package folder (`services/console`). */
export const CONSOLE_PACKAGE_DIR = join(__dirname, '..', '..');
/** Where `npm run build -w @berth/console` writes the front end. */
export const DEFAULT_WEB_DIR = join(CONSOLE_PACKAGE_DIR, 'web', 'dist');

/**
 * Builds the front end with Vite when `dir` has no `index.html` (a fresh checkout running `npm start`), as the
 * other services compile their sources on first start; an image has it built already. Resolves once built.
 * @throws when the build fails (the console has no pages to serve then).
 */
export async function ensureWebBuilt(dir: string, logger: BerthLogger): Promise<void> {
  if (
    await stat(join(dir, 'index.html')).then(
      () => true,
      () => false,
    )
  )
    return;
  logger.info({ dir }, 'Building the console front end (first start)');
  const vite = join(dirname(require.resolve('vite/package.json')), 'bin', 'vite.js');
  const child = spawn(
    process.execPath,
    [
      vite,
      'build',
      '--config',
      join(CONSOLE_PACKAGE_DIR, 'web', 'vite.config.mts'),
      '--outDir',
      dir,
      '--emptyOutDir',
      '--logLevel',
      'warn',
    ],
    { cwd: CONSOLE_PACKAGE_DIR, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`the console front end build failed (vite exited ${String(code)})`);
  logger.info({ dir }, 'Console front end built');
}
