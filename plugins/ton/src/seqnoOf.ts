import type { Cell, Transaction } from '@ton/core';

/** The v5r1 wallet's signed external request: `signed_external#7369676e`. */
const OP_SIGNED_EXTERNAL = 0x7369676e;

/**
 * The seqno a v5r1 wallet's signed external body carries (op, wallet_id, valid_until, seqno, …;
 * the signature is at the end), or null for any other body.
 */
export function seqnoOfBody(body: Cell): number | null {
  const s = body.beginParse();
  if (s.remainingBits < 128 || s.loadUint(32) !== OP_SIGNED_EXTERNAL) return null;
  s.skip(64); // wallet_id, valid_until
  return s.loadUint(32);
}

/** The seqno a wallet transaction consumed: that of its inbound external message, null otherwise. */
export const seqnoOf = (tx: Transaction): number | null =>
  tx.inMessage?.info.type === 'external-in' ? seqnoOfBody(tx.inMessage.body) : null;
