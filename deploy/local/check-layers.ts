/**
 * Checks the rules madge cannot: dependencies flow one way (config, contract ← logger/telemetry ← messaging, service,
 * inbox, webhooks, jobs ← services), libraries are imported through their entry points only, libraries read no
 * environment and never exit the process. Exits 1 listing every breach.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const root = resolve(__dirname, '..', '..');

/** The layer of each library; a library may import only libraries of a lower layer. */
const LIB_LAYERS: Record<string, number> = {
  config: 0,
  contract: 0,
  'local-infra': 0,
  'http-guard': 0,
  logger: 1,
  telemetry: 1,
  metrics: 1,
  webhooks: 2,
  messaging: 2,
  service: 2,
  store: 2,
  inbox: 3,
  jobs: 3,
  cron: 3,
  outbound: 4,
  'webhook-handlers': 4,
};

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules') return [];
    return statSync(path).isDirectory() ? walk(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Drops block and line comments, so prose about process.env is not mistaken for code. */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

/** The module specifiers of a source: `from '…'`, `import '…'`, `import('…')`, `require('…')`, `jest.mock('…')`. */
function specifiers(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(/(?:\bfrom\s+|^\s*import\s+|\b(?:import|require|jest\.mock)\s*\(\s*)'([^']+)'/gm))
    found.push(match[1]);
  return found;
}

/** The subpaths a library's package.json `exports` names besides its index (`testing`, `nest`). */
function exportedSubpaths(lib: string): Set<string> {
  const manifest = join(root, 'libs', lib, 'package.json');
  if (!existsSync(manifest)) return new Set();
  const exportsField = (JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: Record<string, string> }).exports;
  return new Set(
    Object.keys(exportsField ?? {})
      .filter((key) => key !== '.' && key !== './package.json')
      .map((key) => key.slice(2)),
  );
}

/**
 * The package boundaries every file keeps, libraries, services, tests and tools alike: a library is imported through
 * its entry points only (`@berth/<lib>` and the subpaths its `exports` names, never `@berth/<lib>/src/…`), and no
 * relative import crosses into or out of a library's folder.
 */
function boundaryBreaches(file: string, source: string): string[] {
  const rel = relative(root, file);
  const found: string[] = [];
  const ownLib = rel.startsWith(`libs${sep}`) ? rel.split(sep)[1] : undefined;
  for (const specifier of specifiers(source)) {
    const deep = /^@berth\/([a-z-]+)\/(.+)$/.exec(specifier);
    if (deep && LIB_LAYERS[deep[1]] !== undefined && !exportedSubpaths(deep[1]).has(deep[2]))
      found.push(`${rel}: deep import ${specifier}; import @berth/${deep[1]} or a subpath its package.json exports`);
    if (!specifier.startsWith('.')) continue;
    const target = relative(root, resolve(dirname(file), specifier));
    const targetLib = target.startsWith(`libs${sep}`) ? target.split(sep)[1] : undefined;
    if (targetLib !== ownLib)
      found.push(`${rel}: relative import ${specifier} crosses a library's folder; import the package instead`);
  }
  return found;
}

const breaches: string[] = [];
for (const folder of ['libs', 'services', 'test', 'deploy']) {
  for (const file of walk(join(root, folder)))
    breaches.push(...boundaryBreaches(file, withoutComments(readFileSync(file, 'utf8'))));
}
for (const lib of readdirSync(join(root, 'libs'))) {
  const layer = LIB_LAYERS[lib];
  if (layer === undefined) {
    breaches.push(`libs/${lib}: no layer declared in deploy/local/check-layers.ts`);
    continue;
  }
  for (const file of walk(join(root, 'libs', lib, 'src'))) {
    const rel = relative(root, file);
    const isTest = /\.test(-cases)?\.ts$|\/test-support\//.test(file);
    const source = withoutComments(readFileSync(file, 'utf8'));
    for (const match of source.matchAll(/from '@berth\/([a-z-]+)(\/testing)?(?:\/[^']*)?'/g)) {
      const target = match[1];
      const targetLayer = LIB_LAYERS[target];
      if (targetLayer === undefined)
        breaches.push(`${rel}: imports @berth/${target}, which is not a library (libraries never import services)`);
      else if (match[2] && !isTest) breaches.push(`${rel}: only tests may import @berth/${target}/testing`);
      else if (target === 'local-infra' && !isTest) breaches.push(`${rel}: only tests may import @berth/local-infra`);
      else if (target !== 'local-infra' && targetLayer >= layer && target !== lib)
        breaches.push(`${rel}: @berth/${lib} (layer ${layer}) imports @berth/${target} (layer ${targetLayer})`);
    }
    if (!isTest && /process\.env\b/.test(source))
      breaches.push(`${rel}: libraries read no environment; pass values in from a service's config.ts`);
    if (!isTest && /process\.exit\(/.test(source)) breaches.push(`${rel}: libraries never exit the process`);
  }
}
for (const service of readdirSync(join(root, 'services'))) {
  for (const file of walk(join(root, 'services', service, 'src'))) {
    const rel = relative(root, file);
    const source = withoutComments(readFileSync(file, 'utf8'));
    for (const match of source.matchAll(/from '@berth\/([a-z-]+)'/g)) {
      if (LIB_LAYERS[match[1]] === undefined && match[1] !== service)
        breaches.push(`${rel}: services import libraries, not other services (@berth/${match[1]})`);
    }
    if (!/\.test\.ts$/.test(file) && !/\/(config|main)\.ts$/.test(file) && /process\.env\b/.test(source)) {
      breaches.push(`${rel}: only a service's config.ts (and main.ts) read the environment`);
    }
  }
}

if (breaches.length > 0) {
  console.error(`Layer check failed:\n  ${breaches.join('\n  ')}`);
  process.exit(1);
}
console.log(
  'Layer check passed: dependencies flow one way, libraries are imported through their entry points, read no environment and never exit.',
);
