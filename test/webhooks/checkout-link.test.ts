/**
 * Issue 12: `checkout.session.completed` links a workspace to a Stripe customer. The event is only a hint: the
 * session is read from the Stripe API (the stand-in) and linked as Stripe has it, so an event body naming another
 * workspace or customer, or a session that is not complete, links nothing it should not.
 * Runs the gateway and billing-sync as processes; events are signed as Stripe signs them.
 */
import { waitFor } from '@berth/local-infra/testing';
import { startMesh, type Mesh } from '../support/mesh';

let mesh: Mesh;

beforeAll(async () => {
  mesh = await startMesh({ name: 'checkout_link', services: ['gateway', 'billing-sync'] });
}, 180_000);
afterAll(async () => {
  await mesh?.stop();
}, 60_000);

function checkoutEvent(id: string, session: Record<string, unknown>): Record<string, unknown> {
  return {
    id,
    object: 'event',
    type: 'checkout.session.completed',
    api_version: '2025-03-31.basil',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    data: { object: { object: 'checkout.session', ...session } },
  };
}

async function processed(eventId: string): Promise<Record<string, unknown>> {
  return waitFor(
    async () => (await mesh.inbox.events.findOne({ _id: `stripe:${eventId}` })) as Record<string, unknown> | null,
    {
      timeoutMs: 30_000,
      what: `event ${eventId} settled`,
      intervalMs: 100,
      until: (row) => Boolean(row?.processedAt) || Boolean(row?.abandonedAt),
    },
  ) as Promise<Record<string, unknown>>;
}

const workspaces = () => mesh.db.collection<{ _id: string; billing?: { customerId: string } }>('workspaces');

describe('checkout.session.completed', () => {
  beforeAll(async () => {
    await workspaces().insertMany([{ _id: 'org_victim' }, { _id: 'org_owner' }, { _id: 'org_open' }]);
    mesh.standIn.setCustomer({ id: 'cus_owner' });
    mesh.standIn.setSubscriptions('cus_owner', [{ id: 'sub_owner', status: 'active' }]);
    mesh.standIn.setCustomer({ id: 'cus_open' });
  });

  it('links the workspace and customer of the session as the Stripe API has it, not as the event body says', async () => {
    mesh.standIn.setCheckoutSession({ id: 'cs_owner', customer: 'cus_owner', client_reference_id: 'org_owner' });
    const answer = await mesh.sender.sendStripe(
      checkoutEvent('evt_forged_checkout', {
        id: 'cs_owner',
        customer: 'cus_owner',
        client_reference_id: 'org_victim',
      }),
    );
    expect(answer.status).toBe(200);
    expect(await processed('evt_forged_checkout')).toMatchObject({ processedAt: expect.any(Date) });
    expect(mesh.standIn.requestCount('/v1/checkout/sessions/cs_owner')).toBeGreaterThanOrEqual(1);
    expect((await workspaces().findOne({ _id: 'org_victim' }))?.billing).toBeUndefined();
    expect((await workspaces().findOne({ _id: 'org_owner' }))?.billing?.customerId).toBe('cus_owner');
  });

  it('links nothing for a session Stripe does not have as complete', async () => {
    mesh.standIn.setCheckoutSession({
      id: 'cs_open',
      customer: 'cus_open',
      client_reference_id: 'org_open',
      status: 'open',
    });
    expect(
      (
        await mesh.sender.sendStripe(
          checkoutEvent('evt_open_checkout', {
            id: 'cs_open',
            customer: 'cus_open',
            client_reference_id: 'org_open',
            status: 'complete',
          }),
        )
      ).status,
    ).toBe(200);
    expect(await processed('evt_open_checkout')).toMatchObject({ processedAt: expect.any(Date) });
    expect((await workspaces().findOne({ _id: 'org_open' }))?.billing).toBeUndefined();
  });
});
