import { jetstream, jetstreamManager, JetStreamApiError, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import {
  deadLettersStream,
  delayedJobsStream,
  ensureKvBucket,
  ensureStream,
  ensureWebhooksStreamExists,
  jobsStream,
  PROVISIONING_ERROR_CODES,
  webhooksStream,
  type StreamSpec,
} from './index';

const MIB = 1024 ** 2;
const PROVISIONERS = 24;
// Berth's streams scaled down a thousandfold against a store scaled the same way (8 + 6 + 1 of 20 "GB"), so the
// server refuses reservations exactly as the 20 GB store of compose and `npm start` does.
const specs = (): StreamSpec[] => [
  webhooksStream({ maxBytes: 8 * MIB }),
  jobsStream({ maxBytes: 6 * MIB }),
  deadLettersStream({ maxBytes: 1 * MIB }),
  delayedJobsStream(),
];

let server: NatsServerHandle;
let connections: NatsConnection[];
let managers: JetStreamManager[];

beforeAll(async () => {
  server = await startNatsServer({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR), maxFileStore: '20MB' });
  connections = await Promise.all(Array.from({ length: PROVISIONERS }, () => connect({ servers: server.url })));
  managers = await Promise.all(connections.map((nc) => jetstreamManager(nc)));
});
afterAll(async () => {
  await Promise.all(connections.map((nc) => nc.close()));
  await server.stop();
});

async function deleteAllStreams(): Promise<void> {
  for (const name of await managers[0].streams.names().next()) await managers[0].streams.delete(name);
}

/** Each provisioner starts its work with two of the streams, as services with different needs do. */
const startsOf = (index: number): StreamSpec[] => [specs()[index % 4], specs()[(index + 1) % 4]];

describe('provisioning raced by many services and replicas at once', () => {
  afterEach(deleteAllStreams);

  it('reproduces the refusal: plain concurrent creates are refused a reservation (insufficient storage resources)', async () => {
    const refusals: number[] = [];
    for (let round = 0; round < 10 && refusals.length === 0; round++) {
      const results = await Promise.allSettled(
        managers.flatMap((jsm, index) =>
          startsOf(index).map((spec) =>
            jsm.streams.add({ storage: 'file' as never, discard: 'new' as never, ...spec }),
          ),
        ),
      );
      for (const result of results) {
        if (result.status === 'rejected') {
          expect(result.reason).toBeInstanceOf(JetStreamApiError);
          refusals.push((result.reason as JetStreamApiError).code);
        }
      }
      await deleteAllStreams();
    }
    expect(refusals).toContain(PROVISIONING_ERROR_CODES.InsufficientResources);
  });

  it.each([1, 2, 3])(`round %i: all ${PROVISIONERS} provisioners of the same streams and bucket succeed`, async () => {
    const results = await Promise.allSettled(
      managers.map(async (jsm, index) => {
        await Promise.all([
          ...startsOf(index).map((spec) => ensureStream(jsm, spec)),
          ensureWebhooksStreamExists(jsm, { maxBytes: 8 * MIB }),
          ensureKvBucket(jetstream(connections[index]), 'race_bucket', {
            history: 1,
            description: index % 2 ? 'odd' : 'even',
          }),
        ]);
        return Promise.all(specs().map((spec) => ensureStream(jsm, spec)));
      }),
    );
    const failures = results
      .filter((result) => result.status === 'rejected')
      .map((result) => String((result as PromiseRejectedResult).reason));
    expect(failures).toEqual([]);
    const names = (await managers[0].streams.names().next()).sort();
    expect(names).toEqual(['DEAD_LETTERS', 'JOBS', 'JOBS_DELAYED', 'KV_race_bucket', 'WEBHOOKS']);
    expect((await managers[0].streams.info('WEBHOOKS')).config.max_bytes).toBe(8 * MIB);
  });
});
