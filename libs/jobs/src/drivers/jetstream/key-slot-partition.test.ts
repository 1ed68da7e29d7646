import { slotPartitionCodec } from './key-slot-partition';

describe('slotPartitionCodec.settle', () => {
  it('leaves the state a write recorded as decoding its value would give, keys without holders or parked jobs left out', () => {
    const state = slotPartitionCodec.decode(
      JSON.stringify({ keys: { a: { limit: 2, holders: { old: [500, 30000] }, waiting: 0 } } }),
      400,
    );
    state.keys.a.holders.new = [0, 30000];
    state.keys.b = { limit: 1, holders: {}, waiting: 0 }; // its holder released, nothing parked
    state.keys.c = { limit: 1, holders: {}, waiting: 2 };
    const decoded = slotPartitionCodec.decode(slotPartitionCodec.encode(state), 900);
    slotPartitionCodec.settle?.(state, 900);
    expect(state).toEqual(decoded);
    expect(state.keys.a.holders).toEqual({ old: [500, 30000], new: [900, 30000] });
    expect(state.keys.b).toBeUndefined();
  });
});
