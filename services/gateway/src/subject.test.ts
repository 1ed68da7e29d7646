import { eventTypeToSubjectTokens, webhookSubject } from './subject';

describe('webhook subjects', () => {
  it('keeps dotted types as subject tokens', () => {
    expect(webhookSubject('stripe', 'customer.subscription.updated')).toBe(
      'webhooks.stripe.customer.subscription.updated',
    );
    expect(webhookSubject('clerk', 'organizationMembership.created')).toBe(
      'webhooks.clerk.organizationMembership.created',
    );
  });

  it.each([
    ['order created', 'order_created'],
    ['a.*.b', 'a._.b'],
    ['a.>', 'a._'],
    ['a..b', 'a._.b'],
    ['.a.', '_.a._'],
    ['', '_'],
    ['tab\there', 'tab_here'],
    ['ünïcode', '_n_code'],
  ])('sanitizes %j into %j', (type, tokens) => {
    expect(eventTypeToSubjectTokens(type)).toBe(tokens);
  });

  it('cuts very long types', () => {
    expect(eventTypeToSubjectTokens('x'.repeat(500))).toHaveLength(200);
  });
});
