import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interpolate, MissingVariableError, readNativeServices, toLoopback } from '../../deploy/local/compose-services';
import { LOCAL_SECRET_NAMES, localSecrets } from '../../deploy/local/local-secrets';
import { repoRoot } from './deploy-tools';

describe('npm start reading docker-compose.yml (deploy/local/compose-services.ts)', () => {
  it('expands ${VAR}, ${VAR:-default} and ${VAR-default} as Compose does', () => {
    expect(interpolate('a ${X} b', { X: '1' })).toBe('a 1 b');
    expect(interpolate('${X:-d}', {})).toBe('d');
    expect(interpolate('${X:-d}', { X: '' })).toBe('d');
    expect(interpolate('${X-d}', { X: '' })).toBe('');
    expect(interpolate('${X-d}', {})).toBe('d');
  });

  it('takes a required ${VAR:?message} from the environment, else from the local values, else stops naming it', () => {
    expect(interpolate('nats://u:${P:?set P}@nats:4222', { P: 'secret' })).toBe('nats://u:secret@nats:4222');
    expect(interpolate('nats://u:${P:?set P}@nats:4222', { P: '' }, { P: 'local' })).toBe('nats://u:local@nats:4222');
    expect(interpolate('${P?set P}', { P: '' }, { P: 'local' })).toBe('');
    expect(() => interpolate('${P:?set P (openssl rand -hex 32)}', {})).toThrow(
      new MissingVariableError('P', 'set P (openssl rand -hex 32)'),
    );
  });

  it("runs every service with compose's required secrets supplied from the generated local secrets", () => {
    const dir = mkdtempSync(join(tmpdir(), 'berth-local-secrets-'));
    try {
      const file = join(dir, 'local-secrets.json');
      const secrets = localSecrets(file);
      expect(Object.keys(secrets).sort()).toEqual([...LOCAL_SECRET_NAMES].sort());
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(localSecrets(file)).toEqual(secrets);
      expect(secrets.DISPATCHER_API_TOKEN.length).toBeGreaterThanOrEqual(32);
      expect(secrets.STRIPE_WEBHOOK_SECRET).toMatch(/^whsec_/);

      const services = readNativeServices(join(repoRoot, 'docker-compose.yml'), {}, secrets);
      const env = (name: string) => services.find((service) => service.name === name)!.environment;
      expect(env('gateway').STRIPE_WEBHOOK_SECRET).toBe(secrets.STRIPE_WEBHOOK_SECRET);
      expect(env('dispatcher').DISPATCHER_API_TOKEN).toBe(secrets.DISPATCHER_API_TOKEN);
      expect(env('billing-sync').NATS_URL).toBe(`nats://billing-sync:${secrets.NATS_BILLING_SYNC_PASSWORD}@nats:4222`);
      const shell = readNativeServices(
        join(repoRoot, 'docker-compose.yml'),
        { DISPATCHER_API_TOKEN: 'from-the-shell-0123456789abcdef0123456789' },
        secrets,
      );
      expect(shell.find((service) => service.name === 'dispatcher')!.environment.DISPATCHER_API_TOKEN).toBe(
        'from-the-shell-0123456789abcdef0123456789',
      );
      expect(() => readNativeServices(join(repoRoot, 'docker-compose.yml'), {}, {})).toThrow(MissingVariableError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has a local value for every variable compose requires', () => {
    const compose = readFileSync(join(repoRoot, 'docker-compose.yml'), 'utf8')
      .split('\n')
      .filter((line) => !/^\s*#/.test(line))
      .join('\n');
    const required = new Set([...compose.matchAll(/\$\{([A-Za-z0-9_]+):?\?/g)].map((match) => match[1]));
    expect([...required].filter((name) => !(LOCAL_SECRET_NAMES as readonly string[]).includes(name))).toEqual([]);
  });

  it('points URLs at compose service names to loopback, and nothing else', () => {
    const hosts = ['gateway', 'dispatcher'];
    expect(toLoopback('http://dispatcher:3100', hosts)).toBe('http://127.0.0.1:3100');
    expect(toLoopback('{"gateway":"http://gateway:3000/readyz","x":"https://gateway.example.com/"}', hosts)).toBe(
      '{"gateway":"http://127.0.0.1:3000/readyz","x":"https://gateway.example.com/"}',
    );
  });

  it('gives npm start an operator token for the console, stored in plain text only in the local secrets file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'berth-local-secrets-'));
    try {
      const secrets = localSecrets(join(dir, 'local-secrets.json'));
      const tokens = JSON.parse(secrets.CONSOLE_TOKENS) as { name: string; role: string; sha256: string }[];
      expect(tokens).toEqual([
        {
          name: 'local-operator',
          role: 'operator',
          sha256: createHash('sha256').update(secrets.CONSOLE_OPERATOR_TOKEN).digest('hex'),
        },
      ]);
      expect(secrets.CONSOLE_SIGNING_KEY.length).toBeGreaterThanOrEqual(32);
      expect(secrets.CLERK_WEBHOOK_SIGNING_SECRET).toMatch(/^whsec_/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
