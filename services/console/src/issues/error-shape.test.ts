import { errorClassOf, errorShape } from './error-shape';
import { maskPayload } from '../webhooks/mask-payload';

describe('error shapes', () => {
  it('give occurrences of one cause the same shape, and different causes different shapes', () => {
    const a = errorShape('Stripe answered 500 for cus_Q1w2E3r4 after 2013 ms (request req_abc123XYZ)');
    const b = errorShape('Stripe answered 500 for cus_Z9y8X7w6 after 87 ms (request req_zzz999QQQ)');
    expect(a).toBe(b);
    expect(errorShape('Stripe answered 404 for cus_Q1w2E3r4 after 20 ms (request req_abc123XYZ)')).not.toBe(a);
    expect(errorShape('connect ECONNREFUSED 10.0.0.12:443')).toBe(errorShape('connect ECONNREFUSED 10.0.0.99:443'));
  });

  it('reads the error class of "Name: message"', () => {
    expect(errorClassOf('StripeConnectionError: socket hang up')).toEqual({
      errorClass: 'StripeConnectionError',
      message: 'socket hang up',
    });
    expect(errorClassOf('something broke')).toEqual({ errorClass: 'Error', message: 'something broke' });
  });
});

describe('payload masking', () => {
  it('masks personal data and keeps ids, types and amounts', () => {
    const masked = JSON.parse(
      maskPayload(
        JSON.stringify({
          id: 'evt_1',
          type: 'customer.updated',
          data: {
            object: {
              id: 'cus_1',
              email: 'ada@example.com',
              name: 'Ada Lovelace',
              address: { line1: '1 Road', city: 'London' },
              amount: 4900,
              note: 'mail ada@example.com',
            },
          },
        }),
      ),
    ) as { id: string; data: { object: Record<string, unknown> } };
    expect(masked.id).toBe('evt_1');
    expect(masked.data.object).toEqual({
      id: 'cus_1',
      email: '•••',
      name: '•••',
      address: { line1: '•••', city: '•••' },
      amount: 4900,
      note: 'mail •••',
    });
    expect(maskPayload('not json at all')).toMatch(/^••• \(15 bytes, not JSON\)$/);
  });
});
