/**
 * The wrk load generator for the webhook benchmarks: a C client on one thread, fed from a file of requests signed
 * beforehand, each sent once. autocannon spends 60-90 ms of CPU per 1,000 requests on the same two cores as the
 * targets; wrk spends a fraction of that, so the figures follow the targets more than the client.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** One signed request as the pool holds it (the shape of harness.ts's `SignedRequest`, named here so the two files
 * do not import each other). */
export interface PooledRequest {
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, string>>;
}

/** What one wrk run measured. */
export interface WrkResult {
  /** Requests completed over the run, any status. */
  readonly requests: number;
  readonly requestsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Responses with a status of 400 or more (wrk counts no other status). */
  readonly non2xx: number;
  /** Connect, read, write errors and timeouts. */
  readonly errors: number;
  /** Requests sent past the end of the pool: its first requests again, so duplicates. */
  readonly reused: number;
}

/**
 * Each thread of wrk has its own Lua state: `init` reads the pool into it, `request` hands out the next request, and
 * `done` (run in the main state) prints the figures as one JSON line. Fields are tab-separated; headers are
 * `name: value` pairs separated by \x01 (JSON text holds neither raw tabs nor \x01).
 */
const SCRIPT = String.raw`
local pool, size, sent = {}, 0, 0
function init(args)
  for line in io.lines(args[1]) do
    local tab = line:find('\t', 1, true)
    local headers = {}
    for pair in line:sub(1, tab - 1):gmatch('[^\1]+') do
      local colon = pair:find(': ', 1, true)
      headers[pair:sub(1, colon - 1)] = pair:sub(colon + 2)
    end
    size = size + 1
    pool[size] = wrk.format('POST', nil, headers, line:sub(tab + 1))
  end
end
function request()
  sent = sent + 1
  return pool[(sent - 1) % size + 1]
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('BENCH-WRK {"requests":%d,"durationUs":%d,"errors":%d,"status":%d,"p50Us":%d,"p99Us":%d}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(99)))
end
`;

/** The script's name beside its pool file. */
const SCRIPT_FILE = 'pool.lua';

function poolLine(request: PooledRequest): string {
  const headers = Object.entries(request.headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\x01');
  const body = request.body.toString('utf8');
  if (/[\t\n\r\x01]/.test(body) || /[\t\n\r]/.test(headers)) throw new Error('a pooled request holds a tab or newline');
  return `${headers}\t${body}\n`;
}

function run(file: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: timeoutMs, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} failed: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** A pool of requests written out for wrk to read; `dispose` removes it. */
export interface WrkPool {
  readonly file: string;
  readonly size: number;
  dispose(): Promise<void>;
}

/** Writes `pool` and the script that reads it, before any timing starts (about 1.6 KB per request). */
export async function writeWrkPool(pool: readonly PooledRequest[]): Promise<WrkPool> {
  if (pool.length === 0) throw new Error('wrk needs at least one request in its pool');
  const dir = await mkdtemp(join(tmpdir(), 'berth-bench-wrk-'));
  const file = join(dir, 'pool.txt');
  await writeFile(join(dir, SCRIPT_FILE), SCRIPT);
  await writeFile(file, pool.map(poolLine).join(''));
  return { file, size: pool.length, dispose: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * One wrk run of `durationS` seconds on `connections` connections and one thread against `url`, sending the requests
 * of `pool` in order, each once (past its end they repeat, counted in `reused`).
 * @throws when wrk is not installed (`apt-get install wrk`) or prints no result.
 */
export async function fireWrk(url: string, connections: number, durationS: number, pool: WrkPool): Promise<WrkResult> {
  const script = join(dirname(pool.file), SCRIPT_FILE);
  const stdout = await run(
    'wrk',
    ['-t1', `-c${connections}`, `-d${durationS}s`, '--timeout', '10s', '-s', script, url, '--', pool.file],
    (durationS + 60) * 1000,
  );
  const line = stdout.split('\n').find((l) => l.startsWith('BENCH-WRK '));
  if (line === undefined) throw new Error(`wrk printed no result:\n${stdout}`);
  const figures = JSON.parse(line.slice('BENCH-WRK '.length)) as {
    requests: number;
    durationUs: number;
    errors: number;
    status: number;
    p50Us: number;
    p99Us: number;
  };
  return {
    requests: figures.requests,
    requestsPerSec: Math.round(figures.requests / (figures.durationUs / 1e6)),
    p50Ms: Math.round(figures.p50Us / 100) / 10,
    p99Ms: Math.round(figures.p99Us / 100) / 10,
    non2xx: figures.status,
    errors: figures.errors,
    reused: Math.max(0, figures.requests - pool.size),
  };
}
