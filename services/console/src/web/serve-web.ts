import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import type { Context, Next } from 'koa';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.ico': 'image/x-icon',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** Content-Security-Policy of the pages: only this origin's scripts and styles, no inline script, framing as allowed. */
function securityHeaders(ctx: Context, frameAncestors: string): void {
  ctx.set(
    'Content-Security-Policy',
    `default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors ${frameAncestors}`,
  );
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  if (frameAncestors === "'none'") ctx.set('X-Frame-Options', 'DENY');
}

/**
 * Serves the built front end (`web/dist`): a file when the path names one (hashed `assets/` cached for a year),
 * else `index.html`, so every page's URL loads the app. Nothing outside the folder is ever read. The portal
 * (`/portal…`) may be framed by the origins in `portalFrameAncestors`; the console never.
 */
export function serveWeb(options: { dir: string; portalFrameAncestors: string }) {
  const root = normalize(options.dir + sep);
  return async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const isPortal = ctx.path === '/portal' || ctx.path.startsWith('/portal/');
    securityHeaders(ctx, isPortal ? options.portalFrameAncestors : "'none'");
    let relative: string;
    try {
      relative = decodeURIComponent(ctx.path);
    } catch {
      ctx.status = 400;
      return;
    }
    const candidate = normalize(join(root, relative));
    const file =
      candidate.startsWith(root) && (await stat(candidate).catch(() => null))?.isFile()
        ? candidate
        : join(root, 'index.html');
    const info = await stat(file).catch(() => null);
    if (!info) {
      ctx.status = 503;
      ctx.body = 'The console front end is not built: run `npm run build -w @berth/console`.';
      return;
    }
    ctx.type = TYPES[extname(file)] ?? 'application/octet-stream';
    ctx.set('Cache-Control', file.includes(`${sep}assets${sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
    ctx.length = info.size;
    ctx.body = ctx.method === 'HEAD' ? null : createReadStream(file);
  };
}
