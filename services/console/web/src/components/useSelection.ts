import { useState } from 'react';

/** The rows a page's bulk actions apply to: a set of row keys, one checkbox toggling each, cleared on a new search. */
export function useSelection<K>(): { selected: Set<K>; toggle(key: K): void; clear(): void } {
  const [selected, setSelected] = useState<Set<K>>(new Set());
  const toggle = (key: K) =>
    setSelected((previous) => {
      const next = new Set(previous);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  return { selected, toggle, clear: () => setSelected(new Set()) };
}
