import { seatLimitOf } from './seat-limit';

describe('seatLimitOf', () => {
  it('adds the quantities of the items of live subscriptions', () => {
    expect(
      seatLimitOf(
        {
          subscriptions: [
            {
              id: 'sub_1',
              status: 'active',
              items: [
                { priceId: 'seat', quantity: 5 },
                { priceId: 'addon', quantity: 2 },
              ],
            },
            { id: 'sub_2', status: 'trialing', items: { data: [{ priceId: 'seat', quantity: 3 }] } },
            { id: 'sub_3', status: 'canceled', items: [{ quantity: 100 }] },
          ],
        },
        1,
      ),
    ).toBe(10);
  });

  it('counts an item without quantity (metered) as one seat, and keeps past_due subscriptions', () => {
    expect(
      seatLimitOf(
        { subscriptions: [{ id: 'sub_1', status: 'past_due', items: [{ priceId: 'metered', quantity: null }] }] },
        1,
      ),
    ).toBe(1);
  });

  it('falls back to the free plan without a live subscription', () => {
    expect(seatLimitOf({ subscriptions: [] }, 3)).toBe(3);
    expect(seatLimitOf({ subscriptions: [{ id: 'sub_1', status: 'unpaid', items: [{ quantity: 9 }] }] }, 2)).toBe(2);
  });
});
