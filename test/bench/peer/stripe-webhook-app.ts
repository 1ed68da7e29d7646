import Fastify, { type FastifyInstance } from 'fastify';
import Stripe from 'stripe';

/** The value of environment variable `name`, which a peer process cannot run without. */
export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

/**
 * What both peer receivers share, as a typical Stripe receiver is written: Fastify keeping the raw JSON body, the
 * official `stripe` library verifying the signature over it (only verification is used, so the API key is never sent
 * anywhere), and `POST /webhooks/stripe` answering 400 to a missing or bad signature and otherwise what `accept`
 * resolves with for the verified event and its raw body.
 */
export function stripeWebhookApp(
  secret: string,
  accept: (event: Stripe.Event, body: Buffer) => Promise<unknown>,
): FastifyInstance {
  const stripe = new Stripe('sk_test_peer_signing_only');
  const app = Fastify({ logger: false });
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.post('/webhooks/stripe', async (request, reply) => {
    const signature = request.headers['stripe-signature'];
    let event: Stripe.Event;
    try {
      if (!Buffer.isBuffer(request.body) || typeof signature !== 'string') throw new Error('missing body or signature');
      event = stripe.webhooks.constructEvent(request.body, signature, secret);
    } catch {
      return reply.code(400).send({ error: 'invalid signature' });
    }
    return accept(event, request.body);
  });
  return app;
}
