/**
 * Runs the Stripe stand-in as its own process, for `npm start` demos: `PORT=12111 node -r ./deploy/runtime/ts-hook.js
 * test/support/stripe-stand-in/main.ts`, then `STRIPE_API_BASE=http://127.0.0.1:12111` for billing-sync. State is
 * set over HTTP, e.g. `curl -X PUT localhost:12111/_stand-in/customers/cus_1 -d '{"metadata":{"workspaceId":"org_1"}}'`,
 * `PUT /_stand-in/subscriptions/cus_1` (a JSON array), `POST /_stand-in/failures {"count":2}`, `POST /_stand-in/latency {"ms":500}`,
 * `GET /_stand-in/requests`, `DELETE /_stand-in/state`.
 *
 * It starts knowing one customer, `cus_demo`, linked to no workspace, with an active subscription: the customer
 * `npm run demo:webhook` names, so the demo event is processed and logged "nothing to sync", as a `stripe trigger`
 * event would be against real Stripe.
 */
import { StripeStandIn } from './stripe-stand-in';

async function main(): Promise<void> {
  const standIn = new StripeStandIn({ port: Number(process.env.PORT ?? 12111), host: process.env.HOST ?? '127.0.0.1' });
  standIn.setCustomer({ id: 'cus_demo', email: 'demo@example.com', metadata: {} });
  standIn.setSubscriptions('cus_demo', [{ id: 'sub_demo', status: 'active' }]);
  const url = await standIn.start();
  process.stdout.write(`Stripe stand-in listening on ${url}\n`);
  const shutdown = (): void => void standIn.stop().then(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`Stripe stand-in failed to start: ${String(error)}\n`);
  process.exit(1);
});
