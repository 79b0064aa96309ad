import type { DetectContext, DetectedTransfer } from '@walletd/plugin-kit';

/**
 * One entry of a transaction info's `internal_transactions` (java-tron's `InternalTransaction`,
 * visible=false): a value move or call made by a contract while the transaction ran. java-tron
 * writes them only when the node runs with `vm.saveInternalTx = true`.
 */
export interface TronInternalTxJson {
  hash?: string;
  caller_address?: string;
  transferTo_address?: string;
  /** java-tron writes the TRX value first (no `tokenId`), then one entry per TRC-10 token (with `tokenId`). */
  callValueInfo?: { callValue?: unknown; tokenId?: unknown }[];
  /** Hex of "call", "create" or "suicide". */
  note?: string;
  /** Set when the frame (or an ancestor, or the whole transaction) reverted; absent means false. */
  rejected?: unknown;
}

/**
 * eventIndex of the internal transaction at `position` of its transaction's `internal_transactions`
 * (rejected ones counted, so the index is the node's own, stable if the transaction is mined again).
 * Far above the TRC-20 log indexes (1 + log position: a transaction's energy limit keeps those in
 * the thousands) and below 2^31 (the column is a PostgreSQL integer).
 */
export const INTERNAL_EVENT_BASE = 1_000_000_000;

const HEX41 = /^41[0-9a-fA-F]{40}$/;

/** callValue as the node sent it, through `parseLossless`: a safe integer or its decimal text. */
function sun(value: unknown): bigint | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : null;
  if (typeof value === 'string' && /^[0-9]+$/.test(value)) return BigInt(value);
  return null;
}

/** The TRX an internal transaction moved: its entry without a `tokenId` (TRC-10 entries carry one). */
function trxValue(internal: TronInternalTxJson): bigint | null {
  const entry = (internal.callValueInfo ?? []).find((c) => c.tokenId === undefined || c.tokenId === '');
  return entry ? sun(entry.callValue) : null;
}

/**
 * TRX that contracts sent to watched addresses during one transaction whose outer result the
 * caller already judged SUCCESS (a reverted transaction moved nothing; java-tron marks its internal
 * transactions rejected as well). Skipped: a rejected internal transaction (its frame or an
 * ancestor reverted, so the value never moved), a TRC-10 value (`tokenId`), a zero value (a plain
 * call), a recipient that is not watched.
 */
export function internalTransfers(
  internals: TronInternalTxJson[],
  txHash: string,
  ctx: DetectContext,
  extra: Record<string, unknown> | undefined,
): DetectedTransfer[] {
  const out: DetectedTransfer[] = [];
  for (let i = 0; i < internals.length; i++) {
    const internal = internals[i] as TronInternalTxJson;
    if (internal.rejected !== undefined && internal.rejected !== false) continue;
    const to = internal.transferTo_address;
    if (typeof to !== 'string' || !HEX41.test(to)) continue;
    const toKey = to.slice(2).toLowerCase();
    if (!ctx.watched.has(toKey)) continue;
    const amount = trxValue(internal);
    if (amount === null || amount === 0n) continue;
    const caller = internal.caller_address;
    const fromKey = typeof caller === 'string' && HEX41.test(caller) ? caller.slice(2).toLowerCase() : undefined;
    out.push({
      txHash,
      eventIndex: INTERNAL_EVENT_BASE + i,
      ...(fromKey ? { from: fromKey, fromKey } : {}),
      to: toKey,
      toKey,
      assetKey: ctx.native.key,
      amount,
      eventType: 'internal_transfer',
      ...(extra ? { extra } : {}),
    });
  }
  return out;
}
