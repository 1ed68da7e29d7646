/**
 * `npm run demo:webhook`: sends one Stripe-signed `customer.subscription.updated` event to the local gateway,
 * signed with STRIPE_WEBHOOK_SECRET (when unset, the local secret `npm start` generated in .data/local-secrets.json),
 * and prints the answer.
 */
import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import { DEFAULT_LOCAL_SECRETS_FILE } from './compose-services';
import { localSecrets } from './local-secrets';

async function main(): Promise<void> {
  const secret =
    process.env.STRIPE_WEBHOOK_SECRET?.split(',')[0] || localSecrets(DEFAULT_LOCAL_SECRETS_FILE).STRIPE_WEBHOOK_SECRET;
  const url = `${process.env.GATEWAY_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`}/webhooks/stripe`;
  const customer = process.argv[2] ?? 'cus_demo';
  const payload = JSON.stringify({
    id: `evt_${randomUUID().replace(/-/g, '')}`,
    object: 'event',
    type: 'customer.subscription.updated',
    created: Math.floor(Date.now() / 1000),
    data: { object: { id: 'sub_demo', object: 'subscription', customer, status: 'active' } },
  });
  const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret });
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    body: payload,
  });
  console.log(`${response.status} ${await response.text()}  (${url}, customer ${customer})`);
  process.exitCode = response.ok ? 0 : 1;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
