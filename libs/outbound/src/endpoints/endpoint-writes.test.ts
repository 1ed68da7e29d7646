import { startTestMongo, type TestMongo } from '../test-support/test-mongo';
import { outboundCollections, type OutboundCollections } from '../collections';
import { createEndpoint } from './create-endpoint';
import { deleteEndpoint } from './delete-endpoint';
import { EndpointNotFoundError } from './endpoint-operations';
import { rotateEndpointSecret } from './rotate-endpoint-secret';
import { setEndpointEnabled } from './set-endpoint-enabled';
import { updateEndpoint } from './update-endpoint';

let testMongo: TestMongo;
let collections: OutboundCollections;

beforeAll(async () => {
  testMongo = await startTestMongo({ maxPoolSize: 16 });
  collections = outboundCollections(testMongo.client.db(`endpoint_writes_${process.pid}`));
}, 60_000);
afterAll(() => testMongo?.stop());

describe('endpoint writes', () => {
  it('keeps the new secret of every one of concurrent rotations', async () => {
    const { endpoint, secret: first } = await createEndpoint(
      { collections },
      { workspaceId: 'ws_1', url: 'https://example.com/hook' },
    );
    const rotations = await Promise.all(
      Array.from({ length: 6 }, () => rotateEndpointSecret({ collections }, endpoint.id, { overlapMs: 60_000 })),
    );
    const stored = await collections.endpoints.findOne({ _id: endpoint.id });
    const secrets = stored!.secrets.map((entry) => entry.secret);
    expect(secrets).toHaveLength(7);
    expect(new Set(secrets)).toEqual(new Set([first, ...rotations.map((rotation) => rotation.secret)]));
    // Exactly one secret signs without end: the rotation that landed last.
    expect(stored!.secrets.filter((entry) => entry.expiresAt === null)).toEqual([
      expect.objectContaining({ secret: secrets[0] }),
    ]);
  });

  it('answers the endpoint as written, and EndpointNotFoundError for an unknown one', async () => {
    const { endpoint } = await createEndpoint({ collections }, { workspaceId: 'ws_1', url: 'https://example.com/a' });
    expect(await updateEndpoint({ collections }, endpoint.id, { url: 'https://example.com/b' })).toMatchObject({
      id: endpoint.id,
      url: 'https://example.com/b',
    });
    expect(await setEndpointEnabled({ collections }, endpoint.id, false)).toMatchObject({ disabledReason: 'manual' });
    const changed: string[] = [];
    await deleteEndpoint({ collections, onChanged: (id) => void changed.push(id) }, endpoint.id);
    expect(changed).toEqual([endpoint.id]);
    for (const write of [
      () => updateEndpoint({ collections }, endpoint.id, { description: 'x' }),
      () => setEndpointEnabled({ collections }, endpoint.id, true),
      () => rotateEndpointSecret({ collections }, endpoint.id),
      () => deleteEndpoint({ collections }, endpoint.id),
    ])
      await expect(write()).rejects.toBeInstanceOf(EndpointNotFoundError);
    expect(await collections.endpoints.countDocuments({ _id: endpoint.id })).toBe(0);
  });
});
