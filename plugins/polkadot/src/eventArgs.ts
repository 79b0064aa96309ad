import type { Codec } from '@polkadot/types/types';
import { BaseError } from '@walletd/plugin-kit';

/** Field `i` of an event's data; an event without it is not the event its name says (a runtime mismatch). */
export function arg(data: ArrayLike<Codec>, i: number): Codec {
  const v = data[i];
  if (v === undefined) throw new BaseError('encoding_invalid', `event field ${i} missing`);
  return v;
}
