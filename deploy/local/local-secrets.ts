import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The secrets docker-compose.yml requires (`${VAR:?…}`) and `npm start` supplies when the shell does not: generated
 * once per checkout into `.data/local-secrets.json` (mode 0600, never committed), so they stay the same across
 * restarts and `npm run demo:webhook` can sign with the same Stripe secret. Nothing here is a published default:
 * no one but this machine's user knows them. `STRIPE_SECRET_KEY` is the local Stripe stand-in's key;
 * `STORE_PASSWORD` the embedded store's (user `berth`, in the MongoDB URL the services get).
 */
export const LOCAL_SECRET_NAMES = [
  'STRIPE_WEBHOOK_SECRET',
  'STRIPE_SECRET_KEY',
  'DISPATCHER_API_TOKEN',
  'NATS_GATEWAY_PASSWORD',
  'NATS_BILLING_SYNC_PASSWORD',
  'NATS_IDENTITY_SYNC_PASSWORD',
  'NATS_SCHEDULER_PASSWORD',
  'NATS_APP_WORKER_PASSWORD',
  'NATS_DISPATCHER_PASSWORD',
  'NATS_OPERATOR_PASSWORD',
  'CLERK_WEBHOOK_SIGNING_SECRET',
  'CONSOLE_SIGNING_KEY',
  'CONSOLE_OPERATOR_TOKEN',
  'CONSOLE_TOKENS',
  'STORE_PASSWORD',
] as const;

function generate(name: string, generated: Record<string, string>): string {
  if (name === 'STRIPE_WEBHOOK_SECRET') return `whsec_${randomBytes(24).toString('base64url')}`;
  if (name === 'CLERK_WEBHOOK_SIGNING_SECRET') return `whsec_${randomBytes(24).toString('base64')}`;
  if (name === 'CONSOLE_TOKENS') {
    const digest = createHash('sha256').update(generated.CONSOLE_OPERATOR_TOKEN).digest('hex');
    return JSON.stringify([{ name: 'local-operator', role: 'operator', sha256: digest }]);
  }
  if (name === 'STRIPE_SECRET_KEY') return `sk_test_local_${randomBytes(12).toString('hex')}`;
  return randomBytes(32).toString('hex');
}

/** Reads the local secrets from `file`, generating (and saving) any that are missing. */
export function localSecrets(file: string): Record<string, string> {
  const stored = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : {};
  const missing = LOCAL_SECRET_NAMES.filter((name) => typeof stored[name] !== 'string' || stored[name] === '');
  if (missing.length === 0) return stored;
  const secrets: Record<string, string> = { ...stored };
  for (const name of missing) secrets[name] = generate(name, secrets);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secrets;
}
