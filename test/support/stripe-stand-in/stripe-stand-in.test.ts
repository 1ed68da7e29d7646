import Stripe from 'stripe';
import { StripeStandIn } from './index';

let standIn: StripeStandIn;
let stripe: Stripe;

beforeAll(async () => {
  standIn = new StripeStandIn();
  await standIn.start();
  stripe = new Stripe('sk_test_standin', {
    host: '127.0.0.1',
    port: standIn.port,
    protocol: 'http',
    maxNetworkRetries: 0,
  });
});
afterAll(async () => {
  await standIn.stop();
});
beforeEach(() => standIn.reset());

describe('Stripe stand-in, through the real stripe client', () => {
  it("serves customers, deleted customers and a customer's subscriptions", async () => {
    standIn.setCustomer({ id: 'cus_1', metadata: { workspaceId: 'org_1' } });
    standIn.deleteCustomer('cus_gone');
    standIn.setSubscriptions('cus_1', [
      { id: 'sub_1' },
      { id: 'sub_2', status: 'canceled', items: [{ priceId: 'price_pro', quantity: 3 }] },
    ]);
    const customer = await stripe.customers.retrieve('cus_1');
    expect(customer).toMatchObject({ id: 'cus_1', object: 'customer', metadata: { workspaceId: 'org_1' } });
    expect(await stripe.customers.retrieve('cus_gone')).toEqual({ id: 'cus_gone', object: 'customer', deleted: true });
    const all = await stripe.subscriptions
      .list({ customer: 'cus_1', status: 'all', limit: 100 })
      .autoPagingToArray({ limit: 1000 });
    expect(
      all.map((subscription) => [subscription.id, subscription.status, subscription.items.data[0].price.id]),
    ).toEqual([
      ['sub_1', 'active', 'price_basic'],
      ['sub_2', 'canceled', 'price_pro'],
    ]);
    const current = await stripe.subscriptions.list({ customer: 'cus_1' });
    expect(current.data.map((subscription) => subscription.id)).toEqual(['sub_1']);
    expect(standIn.requestCount('/v1/subscriptions', { customer: 'cus_1', status: 'all' })).toBe(1);
    expect(standIn.requestCount('/v1/subscriptions')).toBe(2);
  });

  it('serves disputes, refunds and early fraud warnings', async () => {
    standIn.setDispute({ id: 'du_1', status: 'won' });
    standIn.setRefund({ id: 're_1', amount: 250 });
    standIn.setEarlyFraudWarning({ id: 'issfr_1' });
    expect(await stripe.disputes.retrieve('du_1')).toMatchObject({ id: 'du_1', status: 'won', object: 'dispute' });
    expect(await stripe.refunds.retrieve('re_1')).toMatchObject({ id: 're_1', amount: 250 });
    expect(await stripe.radar.earlyFraudWarnings.retrieve('issfr_1')).toMatchObject({
      id: 'issfr_1',
      fraud_type: 'made_with_stolen_card',
    });
  });

  it('answers 404 resource_missing for an unknown object, as Stripe does', async () => {
    await expect(stripe.customers.retrieve('cus_nope')).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 404,
      code: 'resource_missing',
    });
  });

  it('fails the next N requests, or all of them, with a 503 api_error', async () => {
    standIn.setCustomer({ id: 'cus_2' });
    standIn.failNext(2);
    await expect(stripe.customers.retrieve('cus_2')).rejects.toMatchObject({ type: 'StripeAPIError', statusCode: 503 });
    await expect(stripe.customers.retrieve('cus_2')).rejects.toMatchObject({ statusCode: 503 });
    await expect(stripe.customers.retrieve('cus_2')).resolves.toMatchObject({ id: 'cus_2' });
    standIn.failAll();
    await expect(stripe.customers.retrieve('cus_2')).rejects.toMatchObject({ statusCode: 503 });
    standIn.recover();
    await expect(stripe.customers.retrieve('cus_2')).resolves.toMatchObject({ id: 'cus_2' });
    expect(standIn.requestCount('/v1/customers/cus_2')).toBe(5);
  });

  it('refuses a request without an API key', async () => {
    const response = await fetch(`${standIn.url}/v1/customers/cus_1`);
    expect(response.status).toBe(401);
  });

  it('takes its state over HTTP from other processes', async () => {
    await fetch(`${standIn.url}/_stand-in/customers/cus_http`, {
      method: 'PUT',
      body: JSON.stringify({ metadata: { workspaceId: 'org_9' } }),
    });
    await fetch(`${standIn.url}/_stand-in/subscriptions/cus_http`, {
      method: 'PUT',
      body: JSON.stringify([{ id: 'sub_http' }]),
    });
    await fetch(`${standIn.url}/_stand-in/failures`, { method: 'POST', body: JSON.stringify({ count: 1 }) });
    await expect(stripe.customers.retrieve('cus_http')).rejects.toMatchObject({ statusCode: 503 });
    expect(await stripe.customers.retrieve('cus_http')).toMatchObject({ metadata: { workspaceId: 'org_9' } });
    expect((await stripe.subscriptions.list({ customer: 'cus_http', status: 'all' })).data[0].id).toBe('sub_http');
    const requests = (await (await fetch(`${standIn.url}/_stand-in/requests`)).json()) as { status: number }[];
    expect(requests.map((request) => request.status)).toEqual([503, 200, 200]);
  });
});
