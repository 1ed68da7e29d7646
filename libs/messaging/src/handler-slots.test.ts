import { HandlerSlots } from './handler-slots';

/** `count` messages of `weight` each. */
const messagesOf = (count: number, weight: number): number[] => Array.from({ length: count }, () => weight);

/** Takes and settles messages of the given weights, one after another. */
function runThrough(slots: HandlerSlots, weights: readonly number[]): void {
  for (const weight of weights) {
    slots.take(weight);
    slots.release(weight);
  }
}

describe('HandlerSlots', () => {
  it('asks for one message at the start of a burst, then for every free slot once messages are light', () => {
    const slots = new HandlerSlots(16);
    expect(slots.pullSize()).toBe(1);
    runThrough(slots, messagesOf(8, 1));
    expect(slots.pullSize()).toBe(16);
  });

  it('sizes a pull by the heaviest recent message, not by their average', () => {
    const slots = new HandlerSlots(16);
    runThrough(slots, [...messagesOf(7, 1), 12]);
    // Seven light messages and one of 12 (an average of about 6.6): a pull of two such would hold 24 units against 16.
    expect(slots.pullSize()).toBe(1);
  });

  it('grows the pull again once the heavy message is no longer among the recent ones', () => {
    const slots = new HandlerSlots(16);
    runThrough(slots, [15, ...messagesOf(8, 2)]);
    expect(slots.pullSize()).toBe(8);
  });

  it('asks for what the weight in hand leaves free, and never for less than one', () => {
    const slots = new HandlerSlots(16);
    runThrough(slots, messagesOf(8, 2));
    slots.take(2);
    slots.take(2);
    expect(slots.pullSize()).toBe(6);
    slots.take(14);
    expect(slots.full).toBe(true);
    expect(slots.pullSize()).toBe(1);
  });

  it('starts small again after a pull found no message', () => {
    const slots = new HandlerSlots(16);
    runThrough(slots, messagesOf(8, 1));
    slots.sawNoMessages();
    expect(slots.pullSize()).toBe(1);
  });
});
