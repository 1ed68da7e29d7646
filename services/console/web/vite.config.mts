import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The console's front end: React, built to static files (web/dist) that the console service serves. No inline
// script or style is emitted, so the pages run under a strict Content-Security-Policy.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  oxc: { jsx: { runtime: 'automatic' } },
});
