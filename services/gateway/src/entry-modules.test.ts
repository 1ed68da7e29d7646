import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const root = resolve(__dirname, '..', '..', '..');
const tsHook = join(root, 'deploy', 'runtime', 'ts-hook.js');

/**
 * Loads `modules` in a fresh Node process (Jest's registry is not Node's, so it is the real `require`) the way
 * main.ts does, and lists the packages that came with them.
 */
async function packagesLoadedBy(...modules: string[]): Promise<string[]> {
  const script = `
    for (const module of ${JSON.stringify(modules)}) require(module);
    const names = new Set();
    for (const path of Object.keys(require.cache)) {
      const match = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(path);
      if (match) names.add(match[1]);
    }
    process.stdout.write(JSON.stringify([...names].sort()));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['-r', tsHook, '-e', script], { cwd: root });
  return JSON.parse(stdout) as string[];
}

describe('the gateway loads neither NestJS nor Koa', () => {
  it('run-gateway.ts, the server code main.ts loads, brings in neither @nestjs/*, rxjs nor Koa', async () => {
    const loaded = await packagesLoadedBy(join(__dirname, 'run-gateway.ts'));
    expect(loaded.filter((name) => name === 'koa' || name.startsWith('@koa/'))).toEqual([]);
    expect(loaded).toContain('@nats-io/jetstream');
    expect(loaded.filter((name) => name.startsWith('@nestjs/') || name === 'rxjs')).toEqual([]);
  });

  it('the check sees NestJS when it is loaded: @berth/messaging/nest brings in @nestjs/microservices and rxjs', async () => {
    const loaded = await packagesLoadedBy('@berth/messaging/nest');
    expect(loaded).toEqual(expect.arrayContaining(['@nestjs/microservices', 'rxjs']));
  });
});
