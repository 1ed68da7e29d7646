/**
 * `npm start`: the local mesh without Docker. Installs nats-server and FerretDB if needed (deploy/local/install-tools.sh),
 * starts them on loopback with data under .data/ (unless NATS_URL / MONGO_URL point elsewhere), starts a local
 * Stripe API stand-in when no STRIPE_API_BASE is given, then runs every service docker-compose.yml declares, with
 * the environment compose gives it (host names rewritten to loopback). Ctrl-C stops everything.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startFerretDb, startNatsServer, type FerretDbHandle, type NatsServerHandle } from '@berth/local-infra';
import { readNativeServices, toLoopback } from './compose-services';

const root = resolve(__dirname, '..', '..');
const env = process.env;

async function main(): Promise<void> {
  const binDir = execFileSync('bash', [join(root, 'deploy/local/install-tools.sh')], { stdio: ['ignore', 'pipe', 'inherit'] }).toString().trim().split('\n').pop()!;
  const dataDir = join(root, '.data');
  mkdirSync(dataDir, { recursive: true });
  const stops: (() => Promise<void>)[] = [];

  let natsUrl = env.NATS_URL;
  let nats: NatsServerHandle | undefined;
  if (!natsUrl) {
    nats = await startNatsServer({ binDir, dataDir: join(dataDir, 'nats'), port: Number(env.BERTH_NATS_PORT ?? 4250), monitoring: true, logFile: join(dataDir, 'nats.log') });
    natsUrl = nats.url;
    stops.push(() => nats!.stop());
    console.log(`[infra] nats-server ${natsUrl} (JetStream, sync_interval always, GOMAXPROCS 1, data in .data/nats, monitoring ${nats.monitoringUrl})`);
  }
  let mongoUrl = env.MONGO_URL;
  let mongo: FerretDbHandle | undefined;
  if (!mongoUrl) {
    mongo = await startFerretDb({ binDir, dataDir: join(dataDir, 'ferretdb'), port: Number(env.BERTH_MONGO_PORT ?? 27250), logFile: join(dataDir, 'ferretdb.log') });
    mongoUrl = mongo.url;
    stops.push(() => mongo!.stop());
    console.log(`[infra] FerretDB ${mongoUrl} (MongoDB wire protocol, SQLite data in .data/ferretdb)`);
  }

  const children: ChildProcess[] = [];
  let stripeApiBase = env.STRIPE_API_BASE;
  const standIn = join(root, 'test/support/stripe-stand-in/main.ts');
  if (!stripeApiBase && existsSync(standIn)) {
    const port = env.BERTH_STRIPE_STAND_IN_PORT ?? '12111';
    stripeApiBase = `http://127.0.0.1:${port}`;
    children.push(run('stripe-stand-in', ['node', '-r', './deploy/runtime/ts-hook.js', standIn], { ...env, PORT: port }));
  }

  const services = readNativeServices(join(root, 'docker-compose.yml'), env);
  const hostNames = services.map((service) => service.name);
  for (const service of services) {
    const entry = service.command.find((part) => part.endsWith('.ts'));
    if (entry && !existsSync(join(root, entry))) continue;
    const serviceEnv: NodeJS.ProcessEnv = {
      ...env,
      // Compose passes an empty string for an unset `${VAR:-}`; natively an unset variable stays unset.
      ...Object.fromEntries(Object.entries(service.environment).filter(([, value]) => value !== '').map(([key, value]) => [key, toLoopback(value, hostNames)])),
      NATS_URL: natsUrl,
      MONGO_URL: mongoUrl,
      NODE_ENV: env.NODE_ENV ?? 'development',
      LOG_FORMAT: env.LOG_FORMAT ?? 'pretty',
      OTEL_EXPORTER_OTLP_ENDPOINT: env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '',
      ...(stripeApiBase ? { STRIPE_API_BASE: stripeApiBase } : {}),
      ...(service.name === 'gateway' && env.PORT ? { PORT: env.PORT } : {}),
    };
    for (let replica = 0; replica < service.replicas; replica++) {
      // Replicas share a machine here, so each gets its own health port (compose gives each its own container).
      const replicaEnv = replica > 0 && serviceEnv.HEALTH_PORT ? { ...serviceEnv, HEALTH_PORT: String(Number(serviceEnv.HEALTH_PORT) + 100 * replica) } : serviceEnv;
      children.push(run(service.replicas > 1 ? `${service.name}-${replica + 1}` : service.name, service.command, replicaEnv));
    }
  }

  let stopping = false;
  const shutdown = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    console.log('[berth] stopping…');
    await Promise.all(children.map((child) => new Promise<void>((done) => {
      if (child.exitCode !== null) return done();
      child.once('exit', () => done());
      child.kill('SIGTERM');
    })));
    for (const stop of stops.reverse()) await stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
}

/** Runs one service with its output prefixed by its name. */
function run(name: string, command: string[], childEnv: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(command[0] === 'node' ? process.execPath : command[0], command.slice(1), { cwd: root, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const prefix = `[${name}]`;
  const echo = (chunk: Buffer): void => {
    for (const line of chunk.toString().split('\n')) if (line.length > 0) process.stdout.write(`${prefix} ${line}\n`);
  };
  child.stdout?.on('data', echo);
  child.stderr?.on('data', echo);
  child.on('exit', (code, signal) => console.log(`${prefix} exited (${signal ?? code})`));
  return child;
}

main().catch((error) => {
  console.error('[berth] could not start:', error);
  process.exit(1);
});
