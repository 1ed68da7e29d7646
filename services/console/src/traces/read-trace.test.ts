import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { readTrace, toTraceView } from './read-trace';

const span = (spanID: string, parent: string | null, startTime: number, duration: number, extra = {}) => ({
  spanID,
  operationName: `op ${spanID}`,
  references: parent ? [{ refType: 'CHILD_OF', spanID: parent }] : [],
  startTime,
  duration,
  processID: spanID.startsWith('g') ? 'p1' : 'p2',
  ...extra,
});
const trace = {
  traceID: '0af7651916cd43dd8448eb211c80319c',
  processes: { p1: { serviceName: 'gateway' }, p2: { serviceName: 'billing-sync' } },
  spans: [
    span('b2', 'b1', 1_000_900, 50, { tags: [{ key: 'otel.status_code', value: 'ERROR' }] }),
    span('g1', null, 1_000_000, 2_000),
    span('b1', 'g2', 1_000_500, 1_500),
    span('g2', 'g1', 1_000_100, 300),
    span('x1', 'missing', 1_000_050, 10),
  ],
};

describe('toTraceView', () => {
  it('puts each span after its parent, siblings by start, offsets from the first span, orphans at the top', () => {
    const view = toTraceView(trace);
    expect(view.durationMs).toBe(2);
    expect(view.spans.map((s) => [s.spanId, s.depth, s.service, s.startMs, s.error])).toEqual([
      ['g1', 0, 'gateway', 0, false],
      ['g2', 1, 'gateway', 0.1, false],
      ['b1', 2, 'billing-sync', 0.5, false],
      ['b2', 3, 'billing-sync', 0.9, true],
      ['x1', 0, 'billing-sync', 0.05, false],
    ]);
    expect(view.spans.find((s) => s.spanId === 'x1')?.parentSpanId).toBeNull();
  });
});

describe('readTrace', () => {
  it("reads Jaeger's answer, and null for a trace it does not hold", async () => {
    const server = createServer((request, response) => {
      if (request.url === `/api/traces/${trace.traceID}`)
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [trace] }));
      else response.writeHead(404).end('{"data":null,"errors":[{"code":404,"msg":"trace not found"}]}');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect((await readTrace(base, trace.traceID))?.spans).toHaveLength(5);
      expect(await readTrace(base, 'f'.repeat(32))).toBeNull();
    } finally {
      server.close();
    }
  });
});
