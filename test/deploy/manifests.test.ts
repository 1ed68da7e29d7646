/**
 * The deployment files, validated the way the real tools would take them, on a machine with no Docker engine and
 * no Kubernetes cluster:
 *
 * - docker-compose.yml against the Compose specification's JSON schema (ajv), and loaded by compose-go (the library
 *   of `docker compose`: interpolation, merge keys, consistency checks); its NATS configuration by nats-server -t.
 * - The Dockerfile through BuildKit's parser and lint rules; every build context, target, COPY source and entry file
 *   exists; the images' health check script works.
 * - Every Kubernetes object kustomize renders (base, example overlay, observability): decoded strictly into the
 *   k8s.io/api types, validated against Kubernetes' published OpenAPI v3 schemas, the KEDA ScaledObject and the
 *   Prometheus Operator objects against their CRDs' schemas; then the platform rules (probes, grace periods,
 *   non-root, disruption budgets, scaling) Berth relies on.
 * - The Prometheus rules through Prometheus' own rule loader, the dashboard's queries through the PromQL parser.
 * - docker-compose.yml and `npm start` (deploy/local/compose-services.ts) run the same services with the same
 *   variables, and those variables are every one each service's src/config.ts reads, with valid values.
 *
 * Tools and schemas come from the Go module proxy and are cached outside git (deploy/validate/*.sh): a cold run
 * builds kustomize and berth-deploy-check (about two minutes), later runs take seconds.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import {
  KubernetesOpenApi,
  composeSchemaValidator,
  crdValidator,
  deployCheck,
  describeErrors,
  kustomizeBuild,
  prepareTools,
  repoRoot,
  runTool,
  serviceConfigKeys,
  type K8sObject,
  type SchemaPaths,
} from './deploy-tools';

/** The Node services of Berth: each a compose service, an image target, a Deployment and an `npm start` process. */
const SERVICES = [
  'gateway',
  'billing-sync',
  'identity-sync',
  'app-worker',
  'scheduler',
  'dispatcher',
  'console',
] as const;
type ServiceName = (typeof SERVICES)[number];
/** Services that serve HTTP themselves, on this port; the others serve health on HEALTH_PORT 9464. */
const HTTP_PORTS: Partial<Record<string, number>> = { gateway: 3000, dispatcher: 3100, console: 3200 };

/** The JetStream consumers KEDA scales each consumer service on. app-worker: one `jobs-<queue>` per queue. */
const SCALED_CONSUMERS: Record<string, { stream: string; consumers: RegExp }> = {
  'billing-sync': { stream: 'WEBHOOKS', consumers: /^billing-sync$/ },
  'identity-sync': { stream: 'WEBHOOKS', consumers: /^identity-sync$/ },
  'app-worker': { stream: 'JOBS', consumers: /^jobs-.+$/ },
};

/** Metric names of seed 004 and issue 5 that the dashboard and the alerts must use. */
const SEED_METRICS = [
  'webhook_inbound_total',
  'job_enqueued_total',
  'job_completed_total',
  'job_duration_seconds_bucket',
  'queue_depth',
  'webhook_dlq_depth',
  'webhook_oldest_unprocessed_age_seconds',
  'scheduler_is_leader',
];

/**
 * The secrets docker-compose.yml requires (`${VAR:?…}`, no default), with the values the checks load it with. The
 * token is as long as the dispatcher requires; the rest are as `openssl rand -hex` would give them.
 */
const REQUIRED_SECRETS: Record<string, string> = {
  STRIPE_WEBHOOK_SECRET: 'whsec_test_manifests_0123456789abcdef',
  STRIPE_SECRET_KEY: 'rk_test_manifests_0123456789',
  DISPATCHER_API_TOKEN: 'manifests-test-token-0123456789abcdef0123456789',
  ...Object.fromEntries(
    ['GATEWAY', 'BILLING_SYNC', 'IDENTITY_SYNC', 'SCHEDULER', 'APP_WORKER', 'DISPATCHER', 'OPERATOR'].map((user) => [
      `NATS_${user}_PASSWORD`,
      `${user.toLowerCase()}0123456789abcdef`,
    ]),
  ),
  CONSOLE_TOKENS: JSON.stringify([{ name: 'oncall', role: 'operator', sha256: 'a'.repeat(64) }]),
  CONSOLE_SIGNING_KEY: 'k'.repeat(32),
};

/** The NATS passwords of {@link REQUIRED_SECRETS}, as nats-server's environment. */
const natsPasswords = (): Record<string, string> =>
  Object.fromEntries(Object.entries(REQUIRED_SECRETS).filter(([key]) => key.startsWith('NATS_')));

/** Variables a Deployment sets that no src/config.ts reads: Node's own CA list, and the parts of `$(VAR)` values. */
const RUNTIME_ONLY_VARIABLES = new Set(['NODE_EXTRA_CA_CERTS']);

/** The Secret the manifests refer to, created per environment outside git (deploy/README.md). */
const EXTERNAL_SECRET = 'berth-secrets';

const composePath = join(repoRoot, 'docker-compose.yml');

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile?: string; target?: string };
  command?: string[];
  environment?: Record<string, string | null>;
  labels?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  deploy?: { replicas?: number };
  ports?: unknown[];
  volumes?: unknown[];
  configs?: { source: string; target: string }[];
  stop_grace_period?: string;
}

interface DockerStage {
  name: string;
  base: string;
  cmd: string[] | null;
  cmdIsShell: boolean;
  healthcheck: string[] | null;
  user: string;
  expose: string[];
  env: string[];
  copies: { from: string; sources: string[]; dest: string; matches?: number[] }[];
}

let binDir: string;
let localBinDir: string;
let schemas: SchemaPaths;
/** docker-compose.yml as written (merge keys resolved, nothing interpolated). */
let rawCompose: {
  services: Record<string, ComposeService>;
  configs: Record<string, { content: string }>;
  [key: string]: unknown;
};
/** docker-compose.yml as `docker compose config` sees it with only the required secrets set (every default applies). */
let composeProject: { services: Record<string, ComposeService> };
let composeLoadErrors: string[];
let dockerfile: {
  stages: DockerStage[];
  warnings: string[];
  errors: string[];
  contextFiles: number;
  contextPaths: string[];
};
const renders: Record<'base' | 'overlay' | 'observability', { yaml: string; objects: K8sObject[] }> = {} as never;
let openApi: KubernetesOpenApi;

beforeAll(
  async () => {
    ({ binDir, localBinDir, schemas } = await prepareTools());
    rawCompose = parse(readFileSync(composePath, 'utf8'), { merge: true });
    const loaded = deployCheck<{ errors: string[]; project?: typeof composeProject }>(binDir, [
      'compose',
      composePath,
      ...Object.entries(REQUIRED_SECRETS).map(([key, value]) => `${key}=${value}`),
    ]);
    composeLoadErrors = loaded.errors;
    composeProject = loaded.project ?? { services: {} };
    dockerfile = deployCheck(binDir, ['dockerfile', repoRoot, 'Dockerfile']);
    renders.base = kustomizeBuild(binDir, 'deploy/k8s/base');
    renders.overlay = kustomizeBuild(binDir, 'deploy/k8s/overlays/example');
    renders.observability = kustomizeBuild(binDir, 'deploy/observability');
    openApi = new KubernetesOpenApi(schemas.kubernetesOpenApiV3Dir);
  },
  20 * 60 * 1000,
);

/** The compose services built from the Dockerfile: Berth's own. */
const nodeServices = (): [string, ComposeService][] =>
  Object.entries(composeProject.services).filter(([, service]) => service.build);

describe('docker-compose.yml', () => {
  it('is valid against the Compose specification JSON schema', () => {
    const validate = composeSchemaValidator(schemas.composeSpec);
    expect({ valid: validate(rawCompose), errors: describeErrors(validate) }).toEqual({ valid: true, errors: [] });
  });

  it('loads as docker compose loads it (compose-go: interpolation, merge keys, references, depends_on)', () => {
    expect(composeLoadErrors).toEqual([]);
  });

  it('runs every Berth service, two scheduler replicas, from its own Dockerfile target', () => {
    expect(
      nodeServices()
        .map(([name]) => name)
        .sort(),
    ).toEqual([...SERVICES].sort());
    for (const [name, service] of nodeServices()) {
      expect({ name, context: resolve(repoRoot, service.build!.context), target: service.build!.target }).toEqual({
        name,
        context: repoRoot,
        target: name,
      });
      expect({ name, native: service.labels?.['berth.native'] }).toEqual({ name, native: 'true' });
      expect({ name, command: service.command?.slice(0, 3) }).toEqual({
        name,
        command: ['node', '-r', './deploy/runtime/ts-hook.js'],
      });
    }
    expect(composeProject.services.scheduler.deploy?.replicas).toBe(2);
    expect(composeProject.services.scheduler.ports ?? []).toEqual([]);
  });

  it('starts the services once NATS and MongoDB are healthy, and health-checks every service', () => {
    for (const [name, service] of nodeServices()) {
      expect({ name, nats: service.depends_on?.nats?.condition, mongo: service.depends_on?.mongo?.condition }).toEqual({
        name,
        nats: 'service_healthy',
        mongo: 'service_healthy',
      });
      expect({ name, healthcheck: service.healthcheck?.test?.slice(0, 3) }).toEqual({
        name,
        healthcheck: ['CMD', 'node', 'deploy/docker/healthcheck.js'],
      });
      const grace = Number(/^(\d+)s$/.exec(service.stop_grace_period ?? '')?.[1]);
      expect({ name, stopGraceOver30s: grace > 30 }).toEqual({ name, stopGraceOver30s: true });
    }
    for (const name of ['nats', 'mongo'])
      expect({ name, healthcheck: Boolean(composeProject.services[name].healthcheck) }).toEqual({
        name,
        healthcheck: true,
      });
  });

  it('runs NATS >= 2.11 with JetStream on a volume, fsync always, the version the local tools and Helm values pin', () => {
    const nats = rawCompose.services.nats;
    const version = /^nats:(\d+)\.(\d+)\.(\d+)(-alpine)?$/.exec(nats.image ?? '');
    expect(version).not.toBeNull();
    expect(Number(version![1]) * 100 + Number(version![2])).toBeGreaterThanOrEqual(211);
    const pinned = `${version![1]}.${version![2]}.${version![3]}`;
    expect(readFileSync(join(repoRoot, 'deploy/local/install-tools.sh'), 'utf8')).toContain(
      `NATS_SERVER_VERSION:-v${pinned}`,
    );
    expect((parse(readFileSync(join(repoRoot, 'deploy/nats/values.yaml'), 'utf8')) as any).container.image.tag).toBe(
      `${pinned}-alpine`,
    );
    const conf = rawCompose.configs[nats.configs![0].source].content;
    expect(conf).toMatch(/jetstream\s*\{[^}]*store_dir:\s*\/data[^}]*sync_interval:\s*always/s);
    expect(nats.volumes).toContain('nats-data:/data');
  });

  it('gives NATS a configuration nats-server accepts (nats-server -t)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'berth-nats-conf-'));
    try {
      const file = join(dir, 'nats-server.conf');
      const nats = rawCompose.services.nats;
      writeFileSync(file, rawCompose.configs[nats.configs![0].source].content);
      writeFileSync(join(dir, 'auth.conf'), readFileSync(join(repoRoot, 'deploy/nats/auth.conf'), 'utf8'));
      // The passwords come from the server's environment, as compose gives them.
      expect(runTool(join(localBinDir, 'nats-server'), ['-c', file, '-t'], undefined, natsPasswords())).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs MongoDB 7 as a single-node replica set that initiates itself, and Jaeger with OTLP in and the UI out', () => {
    const mongo = rawCompose.services.mongo;
    expect(mongo.image).toMatch(/^mongo:7(\.|$)/);
    expect(mongo.command).toEqual(expect.arrayContaining(['--replSet', 'rs0']));
    expect(mongo.healthcheck!.test.join(' ')).toMatch(/rs\.initiate\(.*isWritablePrimary/s);
    expect(rawCompose.services.jaeger.ports).toEqual(
      expect.arrayContaining(['127.0.0.1:16686:16686', '127.0.0.1:4318:4318']),
    );
    for (const [name, service] of nodeServices()) {
      expect({
        name,
        otlp: service.environment?.OTEL_EXPORTER_OTLP_ENDPOINT,
        mongo: service.environment?.MONGO_URL,
      }).toEqual({
        name,
        otlp: 'http://jaeger:4318',
        mongo: 'mongodb://mongo:27017/?replicaSet=rs0',
      });
    }
  });
});

describe('Dockerfile and images', () => {
  const stage = (name: string): DockerStage | undefined => dockerfile.stages.find((s) => s.name === name);

  it('parses with BuildKit with no lint warning', () => {
    expect(dockerfile.errors).toEqual([]);
    expect(dockerfile.warnings).toEqual([]);
  });

  it('builds from a pinned Node 22 bookworm-slim image', () => {
    expect(dockerfile.stages[0].base).toMatch(/^node:22\.\d+\.\d+-bookworm-slim(@sha256:[0-9a-f]{64})?$/);
  });

  it('finds every COPY source in the build context once .dockerignore applies', () => {
    const missing = dockerfile.stages.flatMap((s) =>
      s.copies
        .filter((c) => !c.from)
        .flatMap((c) => c.sources.filter((_, i) => c.matches![i] === 0).map((source) => `${s.name}: COPY ${source}`)),
    );
    expect(missing).toEqual([]);
    expect(dockerfile.contextFiles).toBeGreaterThan(0);
  });

  it('has, for each compose service, its target: the same command, an existing entry file, non-root, a health check', () => {
    const problems: string[] = [];
    for (const [name, service] of nodeServices()) {
      const context = resolve(repoRoot, service.build!.context);
      if (!existsSync(context) || !statSync(context).isDirectory())
        problems.push(`${name}: build context ${context} does not exist`);
      const dockerfilePath = join(context, service.build!.dockerfile ?? 'Dockerfile');
      if (!existsSync(dockerfilePath)) problems.push(`${name}: ${dockerfilePath} does not exist`);
      const target = stage(service.build!.target ?? '');
      if (!target) {
        problems.push(`${name}: the Dockerfile has no target ${service.build!.target}`);
        continue;
      }
      if (JSON.stringify(target.cmd) !== JSON.stringify(service.command) || target.cmdIsShell) {
        problems.push(
          `${name}: the image's CMD ${JSON.stringify(target.cmd)} differs from compose's command ${JSON.stringify(service.command)}`,
        );
      }
      const entry = (service.command ?? []).find((part) => part.endsWith('.ts'));
      if (!entry) problems.push(`${name}: the command names no .ts entry file`);
      else if (!existsSync(join(context, entry)))
        problems.push(`${name}: entry file ${entry} does not exist (service not written yet?)`);
      const user = inheritedValue(target, (s) => s.user);
      if (!user || /^(root|0)(:|$)/.test(user)) problems.push(`${name}: the image runs as ${user || 'root'}`);
      if (!target.healthcheck || target.healthcheck[0] !== 'CMD')
        problems.push(`${name}: the image has no HEALTHCHECK`);
    }
    expect(problems).toEqual([]);
  });

  it.each(SERVICES)(
    '%s: the image holds every file and package it loads at run time (build context, production dependencies)',
    (service) => {
      const entry = join(repoRoot, 'services', service, 'src', 'main.ts');
      if (!existsSync(entry))
        throw new Error(`services/${service}/src/main.ts does not exist (service not written yet?)`);
      const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as {
        packages: Record<string, { dev?: boolean }>;
      };
      const { packages, unresolved, files } = runtimeImports(entry);
      // Every source file it loads is sent to the builder (not left out by .dockerignore), so the image has it.
      const context = new Set(dockerfile.contextPaths);
      const outsideContext = files.map((file) => file.slice(repoRoot.length + 1)).filter((file) => !context.has(file));
      expect({ service, outsideContext }).toEqual({ service, outsideContext: [] });
      const pruned = [...packages].filter((pkg) => {
        if (RUNTIME_COMPILERS.includes(pkg)) return false;
        const entries = Object.entries(lock.packages).filter(
          ([path]) => path === `node_modules/${pkg}` || path.endsWith(`/node_modules/${pkg}`),
        );
        return entries.length === 0 || entries.every(([, info]) => info.dev === true);
      });
      expect({ service, unresolved, pruned }).toEqual({ service, unresolved: [], pruned: [] });
    },
  );

  it('keeps the health check script in the build context', () => {
    const copied = dockerfile.stages
      .flatMap((s) => s.copies)
      .find((c) => c.sources.includes('deploy/docker/healthcheck.js'));
    expect(copied?.matches).toEqual([1]);
  });

  describe('deploy/docker/healthcheck.js', () => {
    let server: Server;
    let port: number;
    let status = 200;
    beforeAll(async () => {
      server = createServer((req, res) => {
        res.statusCode = req.url === '/readyz' || req.url === '/healthz' ? status : 404;
        res.end();
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((done) => server.close(() => done())));

    /** Runs the script as the image does (asynchronously: the server answering it lives in this process). */
    const check = async (env: Record<string, string>, args: string[]): Promise<number | null> => {
      const child = spawn(process.execPath, [join(repoRoot, 'deploy/docker/healthcheck.js'), ...args], {
        env: { PATH: process.env.PATH, ...env },
        stdio: 'ignore',
      });
      const [code] = (await once(child, 'exit')) as [number | null];
      return code;
    };

    it('passes on a 2xx answer from the port the named variable holds', async () => {
      status = 200;
      expect(await check({ HEALTH_PORT: String(port) }, ['HEALTH_PORT', '1'])).toBe(0);
      expect(await check({ PORT: String(port) }, ['PORT', '1', '/healthz'])).toBe(0);
    });

    it('fails on an error answer, and when nothing listens', async () => {
      status = 503;
      expect(await check({ HEALTH_PORT: String(port) }, ['HEALTH_PORT', '1'])).toBe(1);
      expect(await check({}, ['HEALTH_PORT', '1'])).toBe(1);
    });
  });
});

/** Kept in the image although the repository lists them as devDependencies (the Dockerfile's prod-deps stage). */
const RUNTIME_COMPILERS = ['@swc/core'];

/**
 * The npm packages a service loads at run time: its entry file's imports, followed through relative imports and the
 * workspace libraries (@berth/*), type-only imports left out (the compiler erases them).
 */
function runtimeImports(entry: string): { packages: Set<string>; unresolved: string[]; files: string[] } {
  const workspaces = new Map<string, string>();
  for (const folder of ['libs', 'services']) {
    for (const name of readdirSync(join(repoRoot, folder))) {
      const manifest = join(repoRoot, folder, name, 'package.json');
      if (!existsSync(manifest)) continue;
      const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string; main?: string };
      workspaces.set(pkg.name, join(repoRoot, folder, name));
    }
  }
  const resolveSource = (base: string): string | undefined =>
    [base, `${base}.ts`, join(base, 'index.ts')].find(
      (candidate) => existsSync(candidate) && statSync(candidate).isFile(),
    );
  const specifiers = (source: string): string[] =>
    [
      ...source.matchAll(/^\s*(?:import|export)\s+(?!type\b)[^'";]*?\bfrom\s+['"]([^'"]+)['"]/gm),
      ...source.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
      ...source.matchAll(/\b(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/g),
    ].map((m) => m[1]);

  const packages = new Set<string>();
  const unresolved: string[] = [];
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of specifiers(readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0])) continue;
      if (specifier.startsWith('.')) {
        const resolved = resolveSource(join(dirname(file), specifier));
        if (resolved) queue.push(resolved);
        else unresolved.push(`${file.slice(repoRoot.length + 1)}: ${specifier}`);
        continue;
      }
      const parts = specifier.split('/');
      const pkg = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
      const workspace = workspaces.get(pkg);
      if (workspace) {
        const subpath = parts.slice(specifier.startsWith('@') ? 2 : 1).join('/');
        const main =
          (JSON.parse(readFileSync(join(workspace, 'package.json'), 'utf8')) as { main?: string }).main ?? 'index.ts';
        const resolved = resolveSource(subpath ? join(workspace, 'src', subpath) : join(workspace, main));
        if (resolved) queue.push(resolved);
        else unresolved.push(`${file.slice(repoRoot.length + 1)}: ${specifier}`);
        continue;
      }
      packages.add(pkg);
    }
  }
  return { packages, unresolved, files: [...seen] };
}

/** The value a stage sets or inherits from the stages it is built FROM. */
function inheritedValue(start: DockerStage, pick: (s: DockerStage) => string): string {
  for (
    let current: DockerStage | undefined = start;
    current;
    current = dockerfile.stages.find((s) => s.name === current!.base)
  ) {
    if (pick(current)) return pick(current);
  }
  return '';
}

describe.each(['base', 'overlay', 'observability'] as const)('Kubernetes objects of %s', (render) => {
  const objects = (): K8sObject[] => renders[render].objects;

  it('decode strictly into the Kubernetes API types (no unknown, duplicate or mistyped field)', () => {
    const results = deployCheck<{ kind: string; name: string; builtIn: boolean; errors: string[] }[]>(
      binDir,
      ['k8s', '-'],
      renders[render].yaml,
    );
    expect(results).toHaveLength(objects().length);
    expect(results.filter((r) => r.errors.length > 0)).toEqual([]);
  });

  it("validate against Kubernetes' OpenAPI v3 schemas, or their CRD's schema", () => {
    const crds = [
      crdValidator(schemas.kedaScaledObjectCrd),
      crdValidator(schemas.prometheusRuleCrd),
      crdValidator(schemas.podMonitorCrd),
    ];
    const problems: string[] = [];
    for (const object of objects()) {
      const where = `${object.kind}/${object.metadata.name}`;
      const crd = crds.find((c) => object.apiVersion.startsWith(`${c.group}/`) && c.kind === object.kind);
      if (crd) {
        problems.push(...crd.validate(object.apiVersion, object).map((e) => `${where}: ${e}`));
        continue;
      }
      const validate = openApi.validatorFor(object.apiVersion, object.kind);
      if (!validate)
        problems.push(`${where}: ${object.apiVersion} ${object.kind} is neither a Kubernetes kind nor a known CRD`);
      else if (!validate(object)) problems.push(...describeErrors(validate).map((e) => `${where}: ${e}`));
    }
    expect(problems).toEqual([]);
  });

  it('set no namespace in the base; every object in one namespace in the overlays', () => {
    const namespaced = objects().filter((o) => o.kind !== 'Namespace');
    const namespaces = new Set(namespaced.map((o) => o.metadata.namespace));
    expect([...namespaces]).toEqual(render === 'base' ? [undefined] : ['berth']);
  });
});

describe('Kubernetes workloads', () => {
  const deployments = (objects: K8sObject[]): K8sObject[] => objects.filter((o) => o.kind === 'Deployment');
  const podSpec = (d: K8sObject): any => d.spec.template.spec;
  const selects = (selector: Record<string, string> | undefined, labels: Record<string, string>): boolean =>
    !!selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);

  it.each(['base', 'overlay'] as const)(
    '%s: one Deployment per service, with a Service and a PodDisruptionBudget selecting its pods',
    (render) => {
      const objects = renders[render].objects;
      expect(
        deployments(objects)
          .map((d) => d.metadata.name)
          .sort(),
      ).toEqual([...SERVICES].sort());
      for (const d of deployments(objects)) {
        const labels = d.spec.template.metadata.labels as Record<string, string>;
        expect(selects(d.spec.selector.matchLabels, labels)).toBe(true);
        const services = objects.filter((o) => o.kind === 'Service' && selects(o.spec.selector, labels));
        const pdbs = objects.filter(
          (o) => o.kind === 'PodDisruptionBudget' && selects(o.spec.selector.matchLabels, labels),
        );
        expect({ deployment: d.metadata.name, services: services.length, pdbs: pdbs.length }).toEqual({
          deployment: d.metadata.name,
          services: 1,
          pdbs: 1,
        });
        // A budget that lets no pod go blocks every node drain.
        expect({ deployment: d.metadata.name, pdb: pdbs[0].spec.maxUnavailable ?? 0 }).not.toEqual({
          deployment: d.metadata.name,
          pdb: 0,
        });
      }
    },
  );

  it('probes /healthz (startup, liveness) and /readyz (readiness) on the health port: HEALTH_PORT 9463 for the gateway (off its webhook port 3000), 3100 for the dispatcher, HEALTH_PORT 9464 for the others', () => {
    for (const d of deployments(renders.overlay.objects)) {
      const container = podSpec(d).containers[0];
      const name = d.metadata.name;
      const port = container.ports.find((p: any) => p.name === 'http');
      if (name === 'gateway') {
        expect({
          name,
          port: port?.containerPort,
          webhooks: container.ports.find((p: any) => p.name === 'webhooks')?.containerPort,
        }).toEqual({ name, port: 9463, webhooks: 3000 });
        expect({ name, HEALTH_PORT: container.env.find((e: any) => e.name === 'HEALTH_PORT')?.value }).toEqual({
          name,
          HEALTH_PORT: '9463',
        });
      } else {
        expect({ name, port: port?.containerPort }).toEqual({ name, port: HTTP_PORTS[name] ?? 9464 });
      }
      if (name === 'gateway') {
        expect({ name, PORT: container.env.find((e: any) => e.name === 'PORT')?.value }).toEqual({
          name,
          PORT: '3000',
        });
      } else if (HTTP_PORTS[name] === undefined) {
        expect({ name, HEALTH_PORT: container.env.find((e: any) => e.name === 'HEALTH_PORT')?.value }).toEqual({
          name,
          HEALTH_PORT: '9464',
        });
      } else {
        expect({ name, PORT: container.env.find((e: any) => e.name === 'PORT')?.value }).toEqual({
          name,
          PORT: String(HTTP_PORTS[name]),
        });
      }
      for (const [probe, path] of [
        ['startupProbe', '/healthz'],
        ['livenessProbe', '/healthz'],
        ['readinessProbe', '/readyz'],
      ]) {
        expect({ name, probe, httpGet: container[probe]?.httpGet }).toEqual({
          name,
          probe,
          httpGet: { path, port: 'http' },
        });
      }
    }
  });

  it('gives running jobs time to finish: terminationGracePeriodSeconds 45-60 s, above the 30 s job grace period', () => {
    for (const d of deployments(renders.overlay.objects)) {
      const grace = podSpec(d).terminationGracePeriodSeconds;
      expect({ name: d.metadata.name, grace: grace >= 45 && grace <= 60 }).toEqual({
        name: d.metadata.name,
        grace: true,
      });
    }
  });

  it('runs non-root, read-only root file system, no privilege escalation, no capabilities, RuntimeDefault seccomp, with resources', () => {
    for (const d of deployments(renders.overlay.objects)) {
      const spec = podSpec(d);
      const name = d.metadata.name;
      expect({ name, pod: spec.securityContext }).toMatchObject({
        name,
        pod: { runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } },
      });
      expect({ name, automount: spec.automountServiceAccountToken }).toEqual({ name, automount: false });
      for (const container of spec.containers) {
        expect({ name, container: container.securityContext }).toEqual({
          name,
          container: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
        });
        expect({
          name,
          requests: Object.keys(container.resources.requests).sort(),
          memoryLimit: Boolean(container.resources.limits?.memory),
        }).toEqual({
          name,
          requests: ['cpu', 'memory'],
          memoryLimit: true,
        });
        // A writable /tmp (emptyDir): the only place the image writes (swc's compile cache, Node's temp files).
        const tmp = container.volumeMounts?.find((m: any) => m.mountPath === '/tmp');
        expect({ name, tmp: spec.volumes?.find((v: any) => v.name === tmp?.name)?.emptyDir !== undefined }).toEqual({
          name,
          tmp: true,
        });
      }
    }
  });

  it('tags every image in the overlay (no :latest) and pulls it from one registry', () => {
    for (const d of deployments(renders.overlay.objects)) {
      expect(podSpec(d).containers[0].image).toMatch(
        new RegExp(`^[a-z0-9.-]+(:\\d+)?/berth/${d.metadata.name}:(?!latest$)[\\w.-]+$`),
      );
    }
  });

  it('refers only to ConfigMaps it renders, and to the one external Secret', () => {
    for (const render of ['base', 'overlay'] as const) {
      const objects = renders[render].objects;
      const configMaps = new Set(objects.filter((o) => o.kind === 'ConfigMap').map((o) => o.metadata.name));
      for (const d of deployments(objects)) {
        for (const container of podSpec(d).containers) {
          for (const source of container.envFrom ?? []) {
            if (source.configMapRef)
              expect({
                render,
                ref: source.configMapRef.name,
                exists: configMaps.has(source.configMapRef.name),
              }).toMatchObject({ exists: true });
            if (source.secretRef) expect(source.secretRef.name).toBe(EXTERNAL_SECRET);
          }
          for (const env of container.env ?? []) {
            if (env.valueFrom?.configMapKeyRef) expect(configMaps.has(env.valueFrom.configMapKeyRef.name)).toBe(true);
            if (env.valueFrom?.secretKeyRef) expect(env.valueFrom.secretKeyRef.name).toBe(EXTERNAL_SECRET);
          }
        }
      }
    }
  });

  it('scales the gateway on CPU (autoscaling/v2), and sets no replica count where an autoscaler owns it', () => {
    const objects = renders.overlay.objects;
    const hpas = objects.filter((o) => o.kind === 'HorizontalPodAutoscaler');
    expect(hpas.map((h) => [h.apiVersion, h.spec.scaleTargetRef.kind, h.spec.scaleTargetRef.name])).toEqual([
      ['autoscaling/v2', 'Deployment', 'gateway'],
    ]);
    expect(hpas[0].spec.metrics).toEqual([
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: expect.any(Number) } },
      },
    ]);
    expect(hpas[0].spec.minReplicas).toBeGreaterThanOrEqual(2);
    const autoscaled = new Set([
      ...hpas.map((h) => h.spec.scaleTargetRef.name),
      ...objects.filter((o) => o.kind === 'ScaledObject').map((s) => s.spec.scaleTargetRef.name),
    ]);
    for (const d of deployments(objects).filter((d) => autoscaled.has(d.metadata.name))) {
      expect({ name: d.metadata.name, replicas: d.spec.replicas }).toEqual({
        name: d.metadata.name,
        replicas: undefined,
      });
    }
  });

  it('scales the consumers on JetStream consumer lag with KEDA nats-jetstream triggers', () => {
    const objects = renders.overlay.objects;
    const scaled = objects.filter((o) => o.kind === 'ScaledObject');
    expect(scaled.map((s) => s.spec.scaleTargetRef.name).sort()).toEqual(Object.keys(SCALED_CONSUMERS).sort());
    for (const s of scaled) {
      const target = s.spec.scaleTargetRef.name as string;
      expect(deployments(objects).some((d) => d.metadata.name === target)).toBe(true);
      // The CRD's CEL rule, which ajv cannot evaluate: minReplicaCount <= maxReplicaCount.
      expect(s.spec.minReplicaCount ?? 0).toBeLessThanOrEqual(s.spec.maxReplicaCount ?? 100);
      expect(s.spec.triggers.length).toBeGreaterThan(0);
      for (const trigger of s.spec.triggers) {
        const m = trigger.metadata;
        expect({ target, type: trigger.type }).toEqual({ target, type: 'nats-jetstream' });
        // The keys KEDA's nats-jetstream scaler requires, with values it can parse.
        expect({ target, endpoint: m.natsServerMonitoringEndpoint }).toEqual({
          target,
          endpoint: expect.stringMatching(/^[a-z0-9.-]+:\d+$/),
        });
        expect({ target, account: m.account, stream: m.stream }).toEqual({
          target,
          account: '$G',
          stream: SCALED_CONSUMERS[target].stream,
        });
        expect({ target, consumer: SCALED_CONSUMERS[target].consumers.test(m.consumer) }).toEqual({
          target,
          consumer: true,
        });
        expect({ target, lagThreshold: /^[1-9]\d*$/.test(m.lagThreshold) }).toEqual({ target, lagThreshold: true });
      }
    }
  });

  it('keeps the scheduler at two replicas, spread over nodes, with no autoscaler', () => {
    const objects = renders.overlay.objects;
    const scheduler = deployments(objects).find((d) => d.metadata.name === 'scheduler')!;
    expect(scheduler.spec.replicas).toBe(2);
    expect(podSpec(scheduler).affinity?.podAntiAffinity).toBeDefined();
    const targets = objects
      .filter((o) => o.kind === 'HorizontalPodAutoscaler' || o.kind === 'ScaledObject')
      .map((o) => o.spec.scaleTargetRef.name);
    expect(targets).not.toContain('scheduler');
  });

  it('uses only configuration names docker-compose.yml gives the same service', () => {
    const problems: string[] = [];
    const objects = renders.overlay.objects;
    for (const d of deployments(objects)) {
      const composeKeys = new Set(Object.keys(composeProject.services[d.metadata.name]?.environment ?? {}));
      const container = d.spec.template.spec.containers[0];
      const expanded = new Set<string>(
        (container.env ?? []).flatMap((v: any) =>
          [...String(v.value ?? '').matchAll(/\$\(([A-Z0-9_]+)\)/g)].map((m) => m[1]),
        ),
      );
      for (const name of kubernetesEnv(objects, d).keys()) {
        if (!composeKeys.has(name) && !RUNTIME_ONLY_VARIABLES.has(name) && !expanded.has(name))
          problems.push(`${d.metadata.name}: ${name} is set in Kubernetes but not in docker-compose.yml`);
      }
    }
    expect(problems).toEqual([]);
  });
});

/** The environment a Deployment's first container gets: envFrom ConfigMaps, then env (secrets as placeholders). */
function kubernetesEnv(objects: K8sObject[], deployment: K8sObject): Map<string, string> {
  const env = new Map<string, string>();
  const container = deployment.spec.template.spec.containers[0];
  for (const source of container.envFrom ?? []) {
    const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === source.configMapRef?.name);
    for (const [key, value] of Object.entries(configMap?.data ?? {})) env.set(key, value);
  }
  for (const variable of container.env ?? []) {
    const value =
      variable.value ??
      (variable.valueFrom?.secretKeyRef
        ? (REQUIRED_SECRETS[variable.name] ?? `placeholder-${variable.name.toLowerCase()}-0123456789abcdef`)
        : '');
    // Kubernetes expands $(NAME) from the variables defined before it.
    env.set(
      variable.name,
      value.replace(/\$\(([A-Z0-9_]+)\)/g, (whole: string, name: string) => env.get(name) ?? whole),
    );
  }
  return env;
}

describe('Prometheus rules and Grafana dashboard', () => {
  const rulesFile = join(repoRoot, 'deploy/observability/prometheus-rules.yaml');

  it("load with Prometheus' rule loader (fields, durations, templates, PromQL)", () => {
    const result = deployCheck<{ format: string; errors: string[]; rules: string[] }>(binDir, ['rules', rulesFile]);
    expect(result.errors).toEqual([]);
    expect(result.format).toBe('PrometheusRule');
    expect(result.rules.length).toBeGreaterThanOrEqual(5);
  });

  it("alert on seed 004's signals: rising queue depth, dead-letter growth, failed jobs per minute, an old unprocessed webhook, no scheduler leader", () => {
    const rules = (parse(readFileSync(rulesFile, 'utf8')) as any).spec.groups.flatMap((g: any) => g.rules) as {
      alert: string;
      expr: string;
    }[];
    const parsed = deployCheck<{ expr: string; error?: string; metrics: string[] }[]>(
      binDir,
      ['promql'],
      JSON.stringify(rules.map((r) => r.expr)),
    );
    const alerting = (metric: string, test: RegExp): string[] =>
      rules.filter((r, i) => parsed[i].metrics.includes(metric) && test.test(r.expr)).map((r) => r.alert);
    expect(alerting('queue_depth', /deriv\(/)).not.toEqual([]);
    expect(alerting('webhook_dlq_depth', /offset|increase|deriv|delta/)).not.toEqual([]);
    expect(alerting('job_completed_total', /outcome="failed"/)).not.toEqual([]);
    expect(alerting('webhook_oldest_unprocessed_age_seconds', />/)).not.toEqual([]);
    expect(alerting('scheduler_is_leader', /< 1/)).not.toEqual([]);
  });

  it('has a dashboard whose every query parses as PromQL and which shows every seed metric', () => {
    const dashboard = JSON.parse(readFileSync(join(repoRoot, 'deploy/observability/grafana-dashboard.json'), 'utf8'));
    const exprs: string[] = dashboard.panels.flatMap((p: any) => (p.targets ?? []).map((t: any) => t.expr));
    expect(exprs.length).toBeGreaterThan(10);
    // Grafana substitutes its variables before Prometheus sees the query.
    const substituted = exprs.map((e) =>
      e.replace(/\$__rate_interval|\$__interval|\$__range/g, '5m').replace(/\$\{?\w+\}?/g, '.*'),
    );
    const parsed = deployCheck<{ expr: string; error?: string; metrics: string[] }[]>(
      binDir,
      ['promql'],
      JSON.stringify(substituted),
    );
    expect(parsed.filter((p) => p.error)).toEqual([]);
    const used = new Set(parsed.flatMap((p) => p.metrics));
    expect(SEED_METRICS.filter((m) => !used.has(m))).toEqual([]);
    const ids = dashboard.panels.map((p: any) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('NATS Helm values (deploy/nats/values.yaml)', () => {
  const values = (): any => parse(readFileSync(join(repoRoot, 'deploy/nats/values.yaml'), 'utf8'));

  it('describe a three-node JetStream cluster on file storage with a volume per node, fsync always', () => {
    const v = values();
    expect(v.config.cluster).toMatchObject({ enabled: true, replicas: 3 });
    expect(v.config.jetstream).toMatchObject({
      enabled: true,
      fileStore: { enabled: true, pvc: { enabled: true } },
      memoryStore: { enabled: false },
    });
    expect(v.config.jetstream.merge.sync_interval).toBe('always');
    expect(v.config.monitor).toMatchObject({ enabled: true, port: 8222 });
    expect(v.podDisruptionBudget.enabled).toBe(true);
  });

  it('merge only settings nats-server accepts (nats-server -t on the merged blocks)', () => {
    const v = values();
    const unquote = (value: unknown): string => String(value).replace(/^<<\s*(.*?)\s*>>$/, '$1');
    const lines = (block: Record<string, unknown>): string =>
      Object.entries(block)
        .map(([k, value]) => `  ${k}: ${unquote(value)}`)
        .join('\n');
    const dir = mkdtempSync(join(tmpdir(), 'berth-nats-values-'));
    try {
      const file = join(dir, 'nats.conf');
      // `00$include: auth.conf` is the chart's include of its ConfigMap's auth.conf (configMap.merge.data).
      const { ['00$include']: included, ...merged } = v.config.merge ?? {};
      writeFileSync(join(dir, String(included)), v.configMap.merge.data[String(included)]);
      writeFileSync(
        file,
        `${lines(merged)}\ninclude ${String(included)}\njetstream {\n  store_dir: ${dir}\n${lines(v.config.jetstream.merge ?? {})}\n}\n`,
      );
      expect(runTool(join(localBinDir, 'nats-server'), ['-c', file, '-t'], undefined, natsPasswords())).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('give the KEDA triggers a monitoring endpoint on the release they describe (headless service, monitor port)', () => {
    const port = values().config.monitor.port;
    for (const s of renders.base.objects.filter((o) => o.kind === 'ScaledObject')) {
      for (const trigger of s.spec.triggers)
        expect(trigger.metadata.natsServerMonitoringEndpoint).toBe(`nats-headless.nats.svc.cluster.local:${port}`);
    }
    expect(renders.base.objects.find((o) => o.kind === 'ConfigMap')?.data?.STREAM_REPLICAS).toBe(
      String(values().config.cluster.replicas),
    );
  });
});

describe('secure by default (docs/security.md)', () => {
  const deployments = (objects: K8sObject[]): K8sObject[] => objects.filter((o) => o.kind === 'Deployment');
  const podSpec = (d: K8sObject): any => d.spec.template.spec;
  const SERVICE_NATS_USERS: Record<ServiceName, string> = {
    gateway: 'gateway',
    'billing-sync': 'billing-sync',
    'identity-sync': 'identity-sync',
    'app-worker': 'app-worker',
    scheduler: 'scheduler',
    dispatcher: 'dispatcher',
    console: 'operator',
  };
  const looksSecret = (name: string): boolean => /SECRET|TOKENS?$|PASSWORD|_KEY$/.test(name);
  const policies = (): K8sObject[] => renders.base.objects.filter((o) => o.kind === 'NetworkPolicy');

  it('compose: no secret has a default; each is required (${VAR:?…}) or empty (the feature off)', () => {
    const defaults: string[] = [];
    for (const [name, service] of Object.entries(rawCompose.services)) {
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        if (!looksSecret(key) || typeof value !== 'string') continue;
        const secretDefaults = [...value.matchAll(/\$\{(\w+)(:?-)([^}]*)\}/g)].filter(
          (m) => looksSecret(m[1]) && m[3] !== '',
        );
        if (secretDefaults.length > 0 || (!value.includes('${') && value !== ''))
          defaults.push(`${name}.${key}: ${value}`);
      }
    }
    expect(defaults).toEqual([]);
    const refused = deployCheck<{ errors: string[] }>(binDir, ['compose', composePath]);
    expect(refused.errors.join('\n')).toMatch(/required variable \w+ is missing a value/);
  });

  it('compose: publishes only the gateway beyond loopback; the data stores, NATS, Jaeger and the management API on 127.0.0.1', () => {
    const exposed: string[] = [];
    for (const [name, service] of Object.entries(rawCompose.services)) {
      for (const port of (service.ports ?? []) as string[]) {
        if (name === 'gateway' ? port !== '3000:3000' : !String(port).startsWith('127.0.0.1:'))
          exposed.push(`${name}: ${port}`);
      }
    }
    expect(exposed).toEqual([]);
    expect(rawCompose.services.dispatcher.ports).toEqual(['127.0.0.1:3100:3100']);
    expect(rawCompose.services.mongo.ports).toEqual(['127.0.0.1:27017:27017']);
  });

  it('compose and Kubernetes: each service connects to NATS as its own user; Kubernetes over TLS', () => {
    for (const service of SERVICES) {
      expect({ service, url: rawCompose.services[service].environment?.NATS_URL }).toEqual({
        service,
        url: `nats://${SERVICE_NATS_USERS[service]}:\${NATS_${SERVICE_NATS_USERS[service].toUpperCase().replace(/-/g, '_')}_PASSWORD:?set NATS_${SERVICE_NATS_USERS[service].toUpperCase().replace(/-/g, '_')}_PASSWORD}@nats:4222`,
      });
      const deployment = renders.overlay.objects.find((o) => o.kind === 'Deployment' && o.metadata.name === service)!;
      const env = kubernetesEnv(renders.overlay.objects, deployment);
      expect({ service, url: env.get('NATS_URL') }).toEqual({
        service,
        url: `tls://${SERVICE_NATS_USERS[service]}:${env.get('NATS_PASSWORD')}@nats.nats.svc.cluster.local:4222`,
      });
      expect(podSpec(deployment).volumes.find((v: any) => v.name === 'nats-ca')?.secret?.secretName).toBe('nats-ca');
    }
    expect(rawCompose.configs['nats-server-conf'].content).toMatch(/^\s*include \.\/auth\.conf$/m);
    expect((rawCompose.configs as any)['nats-auth-conf'].file).toBe('./deploy/nats/auth.conf');
  });

  it('Kubernetes: no secret is optional', () => {
    const optional: string[] = [];
    for (const d of deployments(renders.overlay.objects)) {
      for (const container of podSpec(d).containers) {
        for (const env of container.env ?? [])
          if (env.valueFrom?.secretKeyRef?.optional) optional.push(`${d.metadata.name}: ${env.name}`);
      }
      for (const volume of podSpec(d).volumes ?? [])
        if (volume.secret?.optional) optional.push(`${d.metadata.name}: volume ${volume.name}`);
    }
    expect(optional).toEqual([]);
  });

  it('Kubernetes: a default-deny NetworkPolicy, and one per service allowing only what it needs', () => {
    const all = policies();
    const deny = all.find((p) => p.metadata.name === 'default-deny')!;
    expect(deny.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    for (const d of deployments(renders.base.objects)) {
      const labels = d.spec.template.metadata.labels as Record<string, string>;
      const selecting = all.filter(
        (p) => p !== deny && Object.entries(p.spec.podSelector.matchLabels ?? {}).every(([k, v]) => labels[k] === v),
      );
      expect({ service: d.metadata.name, policies: selecting.map((p) => p.metadata.name) }).toEqual({
        service: d.metadata.name,
        policies: [d.metadata.name],
      });
      const policy = selecting[0];
      expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);
      // Egress: test/deploy/network-policies.test.ts derives it from each service's configuration and dependencies.
      const ingressFrom = policy.spec.ingress.map((rule: any) =>
        rule.from.map(
          (peer: any) =>
            peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] ??
            JSON.stringify(peer.podSelector?.matchLabels),
        ),
      );
      const scrapers = ['monitoring', '{"app.kubernetes.io/name":"console"}'];
      const expected =
        d.metadata.name === 'console'
          ? [['ingress-nginx', 'monitoring']]
          : d.metadata.name === 'gateway'
            ? [['ingress-nginx'], scrapers]
            : d.metadata.name === 'dispatcher'
              ? [['{"berth.dev/dispatcher-client":"true"}'], scrapers]
              : [scrapers];
      expect({ service: d.metadata.name, ingressFrom }).toEqual({ service: d.metadata.name, ingressFrom: expected });
    }
  });

  it('NATS Helm values: TLS for clients and routes, and exactly deploy/nats/auth.conf with its passwords from a Secret', () => {
    const v = parse(readFileSync(join(repoRoot, 'deploy/nats/values.yaml'), 'utf8')) as any;
    expect(v.config.nats.tls).toEqual({ enabled: true, secretName: 'nats-server-tls' });
    expect(v.config.cluster.tls).toEqual({ enabled: true, secretName: 'nats-cluster-tls' });
    const auth = readFileSync(join(repoRoot, 'deploy/nats/auth.conf'), 'utf8');
    expect(v.config.merge['00$include']).toBe('auth.conf');
    expect(v.configMap.merge.data['auth.conf']).toBe(auth);
    const referenced = [...new Set([...auth.matchAll(/\$(NATS_\w+_PASSWORD)/g)].map((m) => m[1]))].sort();
    expect(
      Object.keys(v.container.env)
        .filter((key) => key.startsWith('NATS_'))
        .sort(),
    ).toEqual(referenced);
    for (const key of referenced)
      expect(v.container.env[key]).toEqual({ valueFrom: { secretKeyRef: { name: 'nats-users', key } } });
    expect(
      Object.keys(rawCompose.services.nats.environment ?? {})
        .filter((key) => key.startsWith('NATS_'))
        .sort(),
    ).toEqual(referenced);
  });
});

describe('docker compose and npm start run the same services with the same configuration names', () => {
  const configKeys = serviceConfigKeys;

  /** The function of src/config.ts that reads the environment map (`loadConfig`, `load<Service>Config`). */
  function configLoader(service: ServiceName): (env: Record<string, string | undefined>) => unknown {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const module = require(join(repoRoot, 'services', service, 'src', 'config.ts')) as Record<string, unknown>;
    const name = Object.keys(module).find((key) => /^load\w*Config$/.test(key) && typeof module[key] === 'function');
    if (!name) throw new Error(`services/${service}/src/config.ts exports no load…Config(env) function`);
    return module[name] as (env: Record<string, string | undefined>) => unknown;
  }

  /** A service's environment from compose with every default applied (variables without a value left out). */
  const composeEnv = (service: string): Record<string, string> =>
    Object.fromEntries(
      Object.entries(composeProject.services[service].environment ?? {}).filter(
        (entry): entry is [string, string] => entry[1] !== null,
      ),
    );

  it('npm start (deploy/local/compose-services.ts) reads the same services, commands, replicas and variables', async () => {
    const { readNativeServices } = await import('../../deploy/local/compose-services');
    const native = readNativeServices(composePath, {}, REQUIRED_SECRETS);
    expect(native.map((s) => s.name).sort()).toEqual(
      nodeServices()
        .map(([name]) => name)
        .sort(),
    );
    for (const service of native) {
      const composed = composeProject.services[service.name];
      expect({ name: service.name, command: service.command, replicas: service.replicas }).toEqual({
        name: service.name,
        command: composed.command,
        replicas: composed.deploy?.replicas ?? 1,
      });
      expect({ name: service.name, keys: Object.keys(service.environment).sort() }).toEqual({
        name: service.name,
        keys: Object.keys(composed.environment ?? {}).sort(),
      });
    }
  });

  it.each(SERVICES)('%s: docker-compose.yml provides every variable its src/config.ts reads', (service) => {
    const configFile = join(repoRoot, 'services', service, 'src', 'config.ts');
    if (!existsSync(configFile))
      throw new Error(
        `services/${service}/src/config.ts does not exist: the service reads no validated configuration yet`,
      );
    const provided = new Set(Object.keys(composeProject.services[service]?.environment ?? {}));
    expect(configKeys(service).filter((key) => !provided.has(key))).toEqual([]);
  });

  it.each(SERVICES)(
    '%s: its configuration accepts the values docker-compose.yml and the Kubernetes overlay give',
    (service) => {
      if (!existsSync(join(repoRoot, 'services', service, 'src', 'config.ts'))) {
        throw new Error(
          `services/${service}/src/config.ts does not exist: nothing to check the deployment's values against`,
        );
      }
      const load = configLoader(service);
      expect(() => load(composeEnv(service))).not.toThrow();
      const deployment = renders.overlay.objects.find((o) => o.kind === 'Deployment' && o.metadata.name === service)!;
      expect(() => load(Object.fromEntries(kubernetesEnv(renders.overlay.objects, deployment)))).not.toThrow();
    },
  );

  it.each(SERVICES)("%s: a ${VAR:-default} in docker-compose.yml repeats the code's own default", (service) => {
    if (!existsSync(join(repoRoot, 'services', service, 'src', 'config.ts'))) {
      throw new Error(`services/${service}/src/config.ts does not exist: no defaults to compare with`);
    }
    const load = configLoader(service);
    const env = composeEnv(service);
    const drifted: string[] = [];
    for (const [key, value] of Object.entries(rawCompose.services[service].environment ?? {})) {
      if (typeof value !== 'string' || !/^\$\{\w+:-[^}]*\}$/.test(value)) continue;
      const without = { ...env };
      delete without[key];
      let codeDefault: unknown;
      try {
        codeDefault = load(without);
      } catch {
        continue; // required: the code has no default to drift from
      }
      if (JSON.stringify(load(env)) !== JSON.stringify(codeDefault))
        drifted.push(`${key}: compose says ${JSON.stringify(env[key])}`);
    }
    expect(drifted).toEqual([]);
  });
});

/** Each validator, fed a known mistake, reports it: none of the checks above passes vacuously. */
describe('the validators catch known mistakes', () => {
  const deployment = (): any =>
    JSON.parse(
      JSON.stringify(renders.base.objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'gateway')),
    );
  const scaledObject = (): any =>
    JSON.parse(JSON.stringify(renders.base.objects.find((o) => o.kind === 'ScaledObject')));

  it('strict decoding: an unknown field and a mistyped value', () => {
    const unknown = deployment();
    unknown.spec.template.spec.containers[0].livenessProbe.periodSecond = 5;
    const mistyped = deployment();
    mistyped.spec.template.spec.terminationGracePeriodSeconds = '45';
    const results = deployCheck<{ errors: string[] }[]>(
      binDir,
      ['k8s', '-'],
      [unknown, mistyped].map((o) => JSON.stringify(o)).join('\n---\n'),
    );
    expect(results[0].errors.join()).toMatch(
      /unknown field "spec.template.spec.containers\[0\].livenessProbe.periodSecond"/,
    );
    expect(results[1].errors.join()).toMatch(/terminationGracePeriodSeconds/);
  });

  it('Kubernetes OpenAPI: a missing required field', () => {
    const object = deployment();
    delete object.spec.template.spec.containers[0].name;
    const validate = openApi.validatorFor('apps/v1', 'Deployment')!;
    expect(validate(object)).toBe(false);
    expect(describeErrors(validate).join()).toMatch(/containers\/0 must have required property 'name'/);
  });

  it('KEDA CRD: an unknown field and a mistyped value', () => {
    const keda = crdValidator(schemas.kedaScaledObjectCrd);
    const object = scaledObject();
    object.spec.triggers[0].metdata = object.spec.triggers[0].metadata;
    object.spec.maxReplicaCount = '10';
    const errors = keda.validate(object.apiVersion, object).join('\n');
    expect(errors).toMatch(/triggers\/0 must NOT have additional properties.*metdata/);
    expect(errors).toMatch(/maxReplicaCount must be integer/);
  });

  it('Compose schema: a misspelt service key', () => {
    const validate = composeSchemaValidator(schemas.composeSpec);
    expect(validate({ services: { a: { image: 'x', enviroment: {} } } })).toBe(false);
  });

  it('Prometheus: a broken expression, and an unknown rule field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'berth-rules-'));
    const check = (content: string): string => {
      const file = join(dir, 'rules.yaml');
      writeFileSync(file, content);
      return deployCheck<{ errors: string[] }>(binDir, ['rules', file]).errors.join('\n');
    };
    try {
      expect(check('groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: sum(rate(x[5m])\n')).toMatch(
        /parse error/,
      );
      expect(
        check('groups:\n  - name: g\n    rules:\n      - alert: B\n        expr: up == 0\n        severity: page\n'),
      ).toMatch(/field severity not found/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('files', () => {
  it('keeps no downloaded schema or built tool in the repository', () => {
    const listed = readdirSync(join(repoRoot, 'deploy', 'validate'));
    expect(listed.sort()).toEqual(['checker', 'fetch-schemas.sh', 'install-tools.sh']);
    expect(
      readdirSync(join(repoRoot, 'deploy', 'validate', 'checker')).filter(
        (f) => !/\.(go|mod|sum)$|^\.gitignore$/.test(f),
      ),
    ).toEqual([]);
  });
});
