import type { Withdrawal } from './api';

/** The hash to show, and which of the withdrawal's transactions it is when it sent more than one. */
export interface ShownHash {
  hash: string;
  /** `landed`, `latest broadcast of N`; null while it sent only one. */
  note: string | null;
  /** "Hash", or "Hash (note)": the line's label. */
  label: string;
}

const shown = (hash: string, note: string | null): ShownHash => ({ hash, note, label: note ? `Hash (${note})` : 'Hash' });

/**
 * The one hash a withdrawal's "Hash" line shows (issue 46): its only transaction; once replaced
 * (sped up or cancelled on chain), the latest broadcast until one is mined, then the one that
 * landed (the tracker writes that one on the row, with its confirmations). The row keeps the
 * original's hash until then: showing it after a replacement named a transaction that may never land.
 */
export function shownHash(w: Withdrawal): ShownHash | null {
  const latest = w.attempts?.at(-1);
  if (!latest || !w.attempts) return w.txHash ? shown(w.txHash, null) : null;
  const mined = w.status === 'confirmed' || (w.status === 'rejected' && w.reason === 'cancelled_onchain') || (w.confirmations ?? 0) > 0;
  if (mined && w.txHash) return shown(w.txHash, 'landed');
  // Ended otherwise (dropped, failed): the row's hash is the last the tracker knew of.
  if (w.status === 'rejected' && w.txHash) return shown(w.txHash, null);
  return shown(latest.txHash, `latest broadcast of ${w.attempts.length}`);
}
