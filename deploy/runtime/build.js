'use strict';
/**
 * `npm run build`: compiles every TypeScript source of the libraries and services (tests left out) into the cache of
 * `ts-hook.js`, so the services start without loading the compiler. The Docker image runs it at build time;
 * locally the first start of each service fills the cache anyway.
 *
 * `node deploy/runtime/build.js [folder...]` compiles the given folders instead.
 */
const { readdirSync, statSync } = require('node:fs');
const { join, resolve } = require('node:path');
const { compiled } = require('./ts-hook');

const root = resolve(__dirname, '..', '..');

function sources(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules') return [];
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const defaultFolders = () =>
  ['libs', 'services'].flatMap((group) => readdirSync(join(root, group)).map((name) => join(root, group, name, 'src')));
/** Folders named on the command line (the benchmarks' peer, say) replace the default: every lib's and service's src. */
const folders = process.argv.length > 2 ? process.argv.slice(2).map((folder) => resolve(folder)) : defaultFolders();
let count = 0;
for (const folder of folders) {
  let files;
  try {
    files = sources(folder);
  } catch {
    continue;
  }
  for (const file of files) {
    compiled(file);
    count += 1;
  }
}
console.log(`compiled ${count} TypeScript files into the ts-hook cache`);
