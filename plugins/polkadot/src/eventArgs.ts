import type { Codec } from '@polkadot/types/types';

/** Field `i` of an event's data; an event without it is not the event its name says (a runtime mismatch). */
export function arg(data: ArrayLike<Codec>, i: number): Codec {
  const v = data[i];
  if (v === undefined) throw new Error(`event field ${i} missing`);
  return v;
}
