import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const root = resolve(__dirname, '..', '..', '..', '..');

/** Runs `script` in a fresh Node process (Jest's registry is not Node's) with the TypeScript hook; its stdout. */
async function run(script: string): Promise<string> {
  const hook = join(root, 'deploy', 'runtime', 'ts-hook.js');
  return (await promisify(execFile)(process.execPath, ['-r', hook, '-e', script], { cwd: root })).stdout;
}

describe('read-metadata', () => {
  it('loads no reflect-metadata, and reads "no metadata" from a class while none is installed', async () => {
    const out = await run(`
      const read = require(${JSON.stringify(join(__dirname, 'read-metadata.ts'))});
      class Plain { run() {} }
      process.stdout.write(JSON.stringify({
        loaded: Object.keys(require.cache).some((path) => path.includes('/node_modules/reflect-metadata/')),
        installed: typeof Reflect.getMetadata,
        options: read.processorOptionsOf(Plain) ?? null,
        methods: read.processMethodsOf(Plain),
      }));
    `);
    expect(JSON.parse(out)).toEqual({ loaded: false, installed: 'undefined', options: null, methods: [] });
  });

  it('reads what the decorators stored: they install reflect-metadata through @nestjs/common', async () => {
    const { Processor } = await import('./processor.decorator');
    const { Process } = await import('./process.decorator');
    const { processorOptionsOf, processMethodsOf } = await import('./read-metadata');
    @Processor({ queueName: 'read-metadata-queue' })
    class Decorated {
      @Process('SendJob')
      send(): void {}
    }
    expect(processorOptionsOf(Decorated)).toMatchObject({ queueName: 'read-metadata-queue' });
    expect(processMethodsOf(Decorated)).toEqual([{ methodName: 'send', jobName: 'SendJob' }]);
  });
});
