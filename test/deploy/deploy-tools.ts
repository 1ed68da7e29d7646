/**
 * What test/deploy needs to validate the deployment files with real tools and published schemas: the tools built
 * from the Go module proxy (deploy/validate/install-tools.sh: kustomize, berth-deploy-check), the schemas downloaded
 * into the Go module cache (deploy/validate/fetch-schemas.sh), and ajv validators over those schemas.
 */
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import Ajv, { type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse, parseAllDocuments } from 'yaml';

export const repoRoot = resolve(__dirname, '..', '..');

const execFileAsync = promisify(execFile);

/** Go from /usr/local/go when it is not on PATH (the CI machines install it there). */
const toolEnv = { ...process.env, PATH: `${process.env.PATH ?? ''}:/usr/local/go/bin` };

/** Paths printed by deploy/validate/fetch-schemas.sh. */
export interface SchemaPaths {
  composeSpec: string;
  composeGoVersion: string;
  kubernetesOpenApiV3Dir: string;
  kubernetesVersion: string;
  kedaScaledObjectCrd: string;
  kedaVersion: string;
  prometheusRuleCrd: string;
  podMonitorCrd: string;
  prometheusOperatorVersion: string;
}

/** Runs a repository script with bash; resolves with its stdout, rejects with its stderr. */
async function runScript(script: string): Promise<string> {
  try {
    const { stdout } = await execFileAsync('bash', [join(repoRoot, script)], {
      cwd: repoRoot,
      env: toolEnv,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const failed = error as { stderr?: string; message: string };
    throw new Error(`${script} failed:\n${failed.stderr ?? failed.message}`);
  }
}

/** The last line a script prints: the bin folder, for the install-tools scripts. */
const lastLine = (text: string): string => text.trim().split('\n').pop()!.trim();

/**
 * Builds (or finds cached) kustomize and berth-deploy-check, downloads (or finds cached) the schemas, and the local
 * servers (nats-server, for `nats-server -t`), all at once.
 */
export async function prepareTools(): Promise<{ binDir: string; localBinDir: string; schemas: SchemaPaths }> {
  const [tools, schemas, local] = await Promise.all([
    runScript('deploy/validate/install-tools.sh'),
    runScript('deploy/validate/fetch-schemas.sh'),
    runScript('deploy/local/install-tools.sh'),
  ]);
  return { binDir: lastLine(tools), localBinDir: lastLine(local), schemas: JSON.parse(schemas) as SchemaPaths };
}

/** Runs a tool synchronously (with `env` added to its environment); throws with its stderr when it exits non-zero. */
export function runTool(command: string, args: string[], input?: string, env: Record<string, string> = {}): string {
  const result = spawnSync(command, args, {
    cwd: repoRoot,
    input,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...toolEnv, ...env },
  });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}:\n${result.stderr}`);
  return result.stdout;
}

/** Runs a berth-deploy-check subcommand and parses its JSON answer. */
export function deployCheck<T>(binDir: string, args: string[], input?: string): T {
  return JSON.parse(runTool(join(binDir, 'berth-deploy-check'), args, input)) as T;
}

/** A Kubernetes object as rendered; only the fields the tests read are typed. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: any;
  data?: Record<string, string>;
  [key: string]: unknown;
}

/** `kustomize build <dir>`, as YAML text and as objects. */
export function kustomizeBuild(binDir: string, dir: string): { yaml: string; objects: K8sObject[] } {
  const yaml = runTool(join(binDir, 'kustomize'), ['build', join(repoRoot, dir)]);
  return { yaml, objects: parseYamlStream(yaml) as K8sObject[] };
}

/** Every non-empty document of a YAML stream, as plain values; a YAML error throws. */
export function parseYamlStream(text: string): unknown[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(doc.errors.map((e) => e.message).join('\n'));
      return doc.toJS();
    })
    .filter((value) => value !== null && value !== undefined);
}

/** ajv's error list as readable lines. */
export function describeErrors(validate: ValidateFunction): string[] {
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
  );
}

/** A Go duration ("1m30s"), the `duration` format as compose-go registers it. */
const goDuration = /^[-+]?(\d+(\.\d*)?(ns|us|µs|ms|s|m|h))+$|^0$/;

/** The Compose specification's schema (JSON Schema 2020-12), compiled. */
export function composeSchemaValidator(schemaPath: string): ValidateFunction {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('duration', goDuration);
  return ajv.compile(JSON.parse(readFileSync(schemaPath, 'utf8')));
}

/**
 * The API server evaluates `pattern` with Go's regexp, whose inline flags (`^(?i)…`) JavaScript lacks: a leading
 * flag group becomes a RegExp flag. ajv takes this engine through its `code.regExp` option.
 */
function goRegExp(pattern: string, flags: string): RegExp {
  const inline = /^(\^?)\(\?([ims]+)\)/.exec(pattern);
  if (!inline) return new RegExp(pattern, flags);
  const extra = [...new Set(inline[2])].filter((f) => !flags.includes(f)).join('');
  return new RegExp(inline[1] + pattern.slice(inline[0].length), flags + extra);
}
goRegExp.code = 'goRegExp';

/** Formats of the Kubernetes schemas that JSON Schema does not define (checked by the API server's own code). */
function addKubernetesFormats(ajv: Ajv): void {
  addFormats(ajv);
  ajv.addFormat('int-or-string', true);
  ajv.addFormat('quantity', true);
  ajv.addFormat('duration', goDuration);
}

/**
 * Kubernetes' published OpenAPI v3 documents (one per API group version): finds the schema of a kind by its
 * `x-kubernetes-group-version-kind` and validates against it (types, required fields, int-or-string, nested
 * references), as kubeconform does with the same documents.
 */
export class KubernetesOpenApi {
  private readonly ajv = new Ajv({ strict: false, allErrors: true, code: { regExp: goRegExp } });
  private readonly loaded = new Map<string, Record<string, any>>();
  private readonly validators = new Map<string, ValidateFunction | undefined>();

  constructor(private readonly dir: string) {
    addKubernetesFormats(this.ajv);
  }

  /** The validator of apiVersion/kind, or undefined when Kubernetes publishes no such kind. */
  validatorFor(apiVersion: string, kind: string): ValidateFunction | undefined {
    const key = `${apiVersion}/${kind}`;
    if (!this.validators.has(key)) this.validators.set(key, this.compile(apiVersion, kind));
    return this.validators.get(key);
  }

  private compile(apiVersion: string, kind: string): ValidateFunction | undefined {
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
    const file = group === '' ? `api__${version}_openapi.json` : `apis__${group}__${version}_openapi.json`;
    let doc = this.loaded.get(file);
    if (!doc) {
      try {
        doc = JSON.parse(readFileSync(join(this.dir, file), 'utf8')) as Record<string, any>;
      } catch {
        return undefined;
      }
      this.ajv.addSchema(doc, file);
      this.loaded.set(file, doc);
    }
    const schemas = doc.components.schemas as Record<
      string,
      { 'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[] }
    >;
    const name = Object.keys(schemas).find((candidate) =>
      (schemas[candidate]['x-kubernetes-group-version-kind'] ?? []).some(
        (gvk) => gvk.group === group && gvk.version === version && gvk.kind === kind,
      ),
    );
    return name ? this.ajv.getSchema(`${file}#/components/schemas/${name}`) : undefined;
  }
}

/**
 * A CustomResourceDefinition's schema for one served version, compiled. Like the API server with kubectl's default
 * strict field validation, a field the schema does not declare is an error (unless the schema preserves unknown
 * fields there). The schema's CEL rules (x-kubernetes-validations) are not evaluated; the tests check the few that
 * matter by hand.
 */
export function crdValidator(crdPath: string): {
  group: string;
  kind: string;
  versions: string[];
  validate(apiVersion: string, object: unknown): string[];
} {
  const crd = parse(readFileSync(crdPath, 'utf8')) as {
    spec: {
      group: string;
      names: { kind: string };
      versions: { name: string; served: boolean; schema: { openAPIV3Schema: unknown } }[];
    };
  };
  const ajv = new Ajv({ strict: false, allErrors: true, code: { regExp: goRegExp } });
  addKubernetesFormats(ajv);
  const compiled = new Map<string, ValidateFunction>();
  for (const version of crd.spec.versions.filter((v) => v.served)) {
    compiled.set(
      `${crd.spec.group}/${version.name}`,
      ajv.compile(disallowUnknownFields(version.schema.openAPIV3Schema) as object),
    );
  }
  return {
    group: crd.spec.group,
    kind: crd.spec.names.kind,
    versions: [...compiled.keys()],
    validate(apiVersion, object) {
      const validate = compiled.get(apiVersion);
      if (!validate)
        return [
          `${crd.spec.names.kind} has no served version ${apiVersion} (served: ${[...compiled.keys()].join(', ')})`,
        ];
      return validate(object) ? [] : describeErrors(validate);
    },
  };
}

/** Marks every object schema that lists its properties as closed, as structural-schema pruning + strict validation do. */
function disallowUnknownFields(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(disallowUnknownFields);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' || key === 'patternProperties') {
      out[key] = Object.fromEntries(
        Object.entries(value as object).map(([name, sub]) => [name, disallowUnknownFields(sub)]),
      );
    } else if (['items', 'additionalProperties', 'allOf', 'anyOf', 'oneOf', 'not'].includes(key)) {
      out[key] = disallowUnknownFields(value);
    } else {
      out[key] = value;
    }
  }
  if (
    out.properties &&
    out.additionalProperties === undefined &&
    out['x-kubernetes-preserve-unknown-fields'] !== true
  ) {
    out.additionalProperties = false;
  }
  return out;
}

/** Every environment variable a service's src/config.ts reads: the keys of its zod schema, and the common ones it extends. */
export function serviceConfigKeys(service: string): string[] {
  const source = readFileSync(join(repoRoot, 'services', service, 'src', 'config.ts'), 'utf8');
  const keys = new Set([...source.matchAll(/^\s+([A-Z][A-Z0-9_]*)\s*:/gm)].map((m) => m[1]));
  if (/\bcommonEnvSchema\b/.test(source)) {
    const common = readFileSync(join(repoRoot, 'libs/config/src/common.ts'), 'utf8');
    const block = /commonEnvSchema\s*=\s*z\.object\(\{([\s\S]*?)\}\)/.exec(common)?.[1] ?? '';
    for (const m of block.matchAll(/^\s+([A-Z][A-Z0-9_]*)\s*:/gm)) keys.add(m[1]);
  }
  // The groups of @berth/config a config spreads in (`...healthEnvFields(9464)`), and the groups they spread.
  const groups = readFileSync(join(repoRoot, 'libs/config/src/service-env.ts'), 'utf8');
  const groupKeys = (name: string): string[] => {
    const block = new RegExp(`export const ${name} = [^\\n]*\\n([\\s\\S]*?)\\n\\}\\);`).exec(groups)?.[1] ?? '';
    return [
      ...[...block.matchAll(/^\s+([A-Z][A-Z0-9_]*)\s*:/gm)].map((m) => m[1]),
      ...[...block.matchAll(/\.\.\.(\w+EnvFields)\(/g)].flatMap((m) => groupKeys(m[1])),
    ];
  };
  for (const m of source.matchAll(/\.\.\.(\w+EnvFields)\(/g)) for (const key of groupKeys(m[1])) keys.add(key);
  return [...keys].sort();
}
