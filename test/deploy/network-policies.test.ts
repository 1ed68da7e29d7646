/**
 * Each Kubernetes NetworkPolicy's egress is exactly what its service can reach, derived from the code and the
 * manifests rather than written twice, so the two cannot drift apart:
 *
 * - DNS, for every service.
 * - NATS at the host and port of the Deployment's `NATS_URL`.
 * - MongoDB (anywhere, its port: `MONGO_URL` is a Secret, often a managed service outside the cluster) for the
 *   services whose production dependencies include the `mongodb` driver, and those only; the Deployment gives
 *   `MONGO_URL` to exactly those.
 * - The OTLP collector of `OTEL_EXPORTER_OTLP_ENDPOINT` for the services that run `@berth/telemetry`.
 * - The internet (never the private ranges): the Stripe API's port for a service configured with a Stripe API key
 *   (`STRIPE_SECRET_KEY`), and the delivery ports the dispatcher allows by default (`DEFAULT_ALLOWED_PORTS` of
 *   `@berth/outbound`) for the service that reads `OUTBOUND_ALLOWED_PORTS`.
 * - Berth's own pods, on the container port behind each in-cluster URL the Deployment is given (the console's
 *   `DISPATCHER_URL` and `CONSOLE_HEALTH_URLS`), resolved through the Service.
 *
 * A configuration variable naming a URL the service reaches must be one of those, or listed below as set only by
 * an overlay (which then adds its own egress rule).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { DEFAULT_ALLOWED_PORTS } from '@berth/outbound';
import { repoRoot, serviceConfigKeys } from './deploy-tools';

const SERVICES = ['gateway', 'billing-sync', 'identity-sync', 'app-worker', 'scheduler', 'dispatcher', 'console'];

/** URL variables the base does not set, with why no base egress rule is needed for them. */
const NOT_REACHED_IN_THE_BASE: Record<string, string> = {
  ALERT_WEBHOOK_URL: 'optional and unset in the base: an overlay that sets it adds its egress rule',
  JAEGER_UI_URL: "a link the operator's browser follows; the console never requests it",
};

/** The private ranges an internet rule must exclude (the cluster's, the cloud's metadata service). */
const PRIVATE_RANGES = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16'];

/** The Stripe API base the stripe package calls unless `STRIPE_API_BASE` says otherwise. */
const STRIPE_API = 'https://api.stripe.com';

type K8sObject = { kind: string; metadata: { name: string }; spec: any; data?: Record<string, string> };

const baseDir = join(repoRoot, 'deploy/k8s/base');
const objects: K8sObject[] = readdirSync(baseDir)
  .filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml')
  .flatMap((file) => parseAllDocuments(readFileSync(join(baseDir, file), 'utf8')).map((doc) => doc.toJS()))
  .filter((object): object is K8sObject => object !== null && typeof object === 'object' && 'kind' in object);
const kustomization = parseAllDocuments(readFileSync(join(baseDir, 'kustomization.yaml'), 'utf8'))[0].toJS() as {
  configMapGenerator: { name: string; literals: string[] }[];
};
/** The base's berth-config, which every Deployment reads through envFrom. */
const berthConfig = Object.fromEntries(
  kustomization.configMapGenerator
    .find((generator) => generator.name === 'berth-config')!
    .literals.map((literal) => [literal.slice(0, literal.indexOf('=')), literal.slice(literal.indexOf('=') + 1)]),
);

const find = (kind: string, name: string): K8sObject => {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`deploy/k8s/base has no ${kind} ${name}`);
  return found;
};

/** The first container's environment: literal values, `secret:<key>` for Secret references, berth-config under it. */
function containerEnv(service: string): Record<string, string> {
  const container = find('Deployment', service).spec.template.spec.containers[0];
  const fromConfigMap = (container.envFrom ?? []).some(
    (source: { configMapRef?: { name: string } }) => source.configMapRef?.name === 'berth-config',
  );
  return {
    ...(fromConfigMap ? berthConfig : {}),
    ...Object.fromEntries(
      (container.env ?? []).map((entry: { name: string; value?: string; valueFrom?: any }) => [
        entry.name,
        entry.value ?? `secret:${entry.valueFrom?.secretKeyRef?.key}`,
      ]),
    ),
  };
}

/** A package's production dependencies, workspace libraries followed. */
function dependencies(manifest: string, seen = new Set<string>()): Set<string> {
  const { dependencies: deps = {} } = JSON.parse(readFileSync(manifest, 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  for (const name of Object.keys(deps)) {
    if (seen.has(name)) continue;
    seen.add(name);
    if (name.startsWith('@berth/'))
      dependencies(join(repoRoot, 'libs', name.slice('@berth/'.length), 'package.json'), seen);
  }
  return seen;
}

const portOf = (url: URL): number =>
  url.port ? Number(url.port) : ({ 'https:': 443, 'http:': 80, 'tls:': 4222, 'nats:': 4222 }[url.protocol] ?? NaN);

/** `<service>.<namespace>.svc…` → the namespace; a bare name → this namespace (`berth`). */
const namespaceOf = (host: string): string => (host.includes('.') ? host.split('.')[1] : 'berth');

/** The container port a request to an in-cluster Service URL lands on (what a NetworkPolicy sees). */
function containerPortBehind(url: URL): number {
  const service = find('Service', url.hostname);
  const port = service.spec.ports.find((candidate: { port: number }) => candidate.port === portOf(url));
  if (!port) throw new Error(`Service ${url.hostname} has no port ${portOf(url)}`);
  if (typeof port.targetPort === 'number') return port.targetPort;
  const workload = objects.find(
    (object) =>
      object.kind === 'Deployment' &&
      Object.entries(service.spec.selector).every(([k, v]) => object.spec.template.metadata.labels[k] === v),
  )!;
  const named = workload.spec.template.spec.containers
    .flatMap((container: { ports?: { name: string; containerPort: number }[] }) => container.ports ?? [])
    .find((candidate: { name: string }) => candidate.name === (port.targetPort ?? port.name));
  return named.containerPort;
}

/** What the service can reach, derived from its configuration, dependencies and Deployment, as `<peer> <port>/<protocol>`. */
function reachable(service: string): string[] {
  const env = containerEnv(service);
  const keys = new Set(serviceConfigKeys(service));
  const deps = dependencies(join(repoRoot, 'services', service, 'package.json'));
  const reach = new Set(['dns 53/UDP', 'dns 53/TCP']);
  const accounted = new Set(['NATS_URL', 'MONGO_URL', 'OTEL_EXPORTER_OTLP_ENDPOINT']);

  const nats = new URL(env.NATS_URL);
  reach.add(`namespace ${namespaceOf(nats.hostname)} ${portOf(nats)}/TCP`);
  if (deps.has('mongodb')) reach.add(`anywhere 27017/TCP`);
  if (deps.has('@berth/telemetry')) {
    const otlp = new URL(env.OTEL_EXPORTER_OTLP_ENDPOINT);
    reach.add(`namespace ${namespaceOf(otlp.hostname)} ${portOf(otlp)}/TCP`);
  }
  if (keys.has('STRIPE_SECRET_KEY')) {
    reach.add(`internet ${portOf(new URL(env.STRIPE_API_BASE ?? STRIPE_API))}/TCP`);
    accounted.add('STRIPE_API_BASE');
  }
  if (keys.has('OUTBOUND_ALLOWED_PORTS'))
    for (const port of env.OUTBOUND_ALLOWED_PORTS?.split(',') ?? DEFAULT_ALLOWED_PORTS)
      reach.add(`internet ${port.trim()}/TCP`);
  for (const key of ['DISPATCHER_URL', 'CONSOLE_HEALTH_URLS'].filter((name) => keys.has(name))) {
    accounted.add(key);
    const value = env[key];
    const urls = value.startsWith('{') ? Object.values(JSON.parse(value) as Record<string, string>) : [value];
    for (const url of urls) reach.add(`berth pods ${containerPortBehind(new URL(url))}/TCP`);
  }
  const unaccounted = [...keys].filter(
    (key) => /_URLS?$|_ENDPOINT$|_API_BASE$/.test(key) && !accounted.has(key) && !(key in NOT_REACHED_IN_THE_BASE),
  );
  if (unaccounted.length > 0)
    throw new Error(`${service} reads ${unaccounted.join(', ')}: derive its egress here, or say why it needs none`);
  return [...reach].sort();
}

function peerOf(peer: any): string {
  const namespace = peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'];
  if (namespace === 'kube-system' && peer.podSelector?.matchLabels?.['k8s-app'] === 'kube-dns') return 'dns';
  if (namespace) return `namespace ${namespace}`;
  if (peer.ipBlock?.cidr === '0.0.0.0/0') return peer.ipBlock.except?.length ? 'internet' : 'anywhere';
  if (peer.podSelector?.matchLabels?.['app.kubernetes.io/part-of'] === 'berth') return 'berth pods';
  return JSON.stringify(peer);
}

/** What the service's NetworkPolicy lets it reach, in the same form. */
function allowed(service: string): string[] {
  const policy = find('NetworkPolicy', service);
  const out = new Set<string>();
  for (const rule of policy.spec.egress ?? [])
    for (const peer of rule.to ?? [])
      for (const port of rule.ports ?? []) out.add(`${peerOf(peer)} ${port.port}/${port.protocol ?? 'TCP'}`);
  return [...out].sort();
}

describe('NetworkPolicy egress agrees with what each service can reach', () => {
  it.each(SERVICES)('%s', (service) => {
    expect(allowed(service)).toEqual(reachable(service));
  });

  it('keeps every internet rule off the private ranges, and MongoDB on its own port', () => {
    for (const service of SERVICES) {
      for (const rule of find('NetworkPolicy', service).spec.egress ?? []) {
        for (const peer of rule.to ?? []) {
          if (peer.ipBlock?.cidr !== '0.0.0.0/0') continue;
          if (peer.ipBlock.except) expect(peer.ipBlock.except).toEqual(expect.arrayContaining(PRIVATE_RANGES));
          else expect({ service, ports: rule.ports }).toEqual({ service, ports: [{ protocol: 'TCP', port: 27017 }] });
        }
      }
    }
  });

  it('gives MONGO_URL only to the services that use MongoDB', () => {
    for (const service of SERVICES) {
      const usesMongo = dependencies(join(repoRoot, 'services', service, 'package.json')).has('mongodb');
      expect({ service, mongoUrl: 'MONGO_URL' in containerEnv(service) }).toEqual({ service, mongoUrl: usesMongo });
    }
  });
});
