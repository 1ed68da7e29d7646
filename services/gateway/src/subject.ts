/** Longest event type kept in a subject; longer ones are cut (the full type travels in `Berth-Event-Type`). */
const MAX_TYPE_LENGTH = 200;

/** A type that is already a valid run of NATS subject tokens made of safe characters. */
const SAFE_TYPE = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;
/** Characters replaced inside a token: anything but letters, digits, `_` and `-` (so spaces, `*`, `>`, controls). */
const UNSAFE_CHARACTERS = /[^A-Za-z0-9_-]/g;

/**
 * Turns a provider's event type into NATS subject tokens. Dots are kept and are intended
 * (`customer.subscription.updated` stays three tokens, so consumers can filter on `webhooks.stripe.customer.>`);
 * wildcards, whitespace and other characters become `_`, and an empty token becomes `_`.
 */
export function eventTypeToSubjectTokens(type: string): string {
  if (type.length <= MAX_TYPE_LENGTH && SAFE_TYPE.test(type)) return type;
  return type
    .slice(0, MAX_TYPE_LENGTH)
    .split('.')
    .map((token) => token.replace(UNSAFE_CHARACTERS, '_') || '_')
    .join('.');
}

/** The subject an event is published on: `webhooks.<provider>.<type tokens>`. */
export function webhookSubject(provider: string, type: string): string {
  return `webhooks.${provider}.${eventTypeToSubjectTokens(type)}`;
}
