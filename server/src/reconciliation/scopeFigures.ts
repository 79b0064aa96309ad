import { type Db, parseBaseUnits } from '@walletd/core';
import { ledger } from '../funds/ledger';
import type { LedgerFigures } from './driftBand';

/** One comparison unit: an account (account chains) or a pooled wallet's every address (null). */
export interface Scope {
  walletId: number;
  companyId: number;
  /** The account compared; null for a pooled wallet (UTXO coins, an account-tag wallet's account). */
  address: string | null;
  /** What the node is asked about: the account itself, or every address of the pooled wallet. */
  addresses: string[];
}

/**
 * The ledger's figures per asset at a scope. Only withdrawals signed or broadcast count as in
 * flight: a prepared one has not reached the node, so it cannot explain a lower balance there.
 */
export async function scopeFigures(db: Db, scope: Scope, nativeKey: string): Promise<Map<string, LedgerFigures>> {
  const held = await ledger(db, { walletId: scope.walletId, address: scope.address, nativeKey, reserving: ['signed', 'broadcast'] });
  const byAddr = scope.address !== null;
  const pending = (await db.raw(
    `select t.asset_key, sum(t.amount)::text as total from transfers t
       ${byAddr ? 'join addresses a on a.id = t.address_id' : ''}
      where t.wallet_id = :wallet and t.direction = 'incoming' and t.status = 'pending'
            ${byAddr ? 'and a.address = :address' : ''}
      group by t.asset_key`,
    { wallet: scope.walletId, address: scope.address },
  )) as { rows: { asset_key: string; total: string }[] };
  // Pooled: a movement between the wallet's own addresses changes nothing but the fee (in flight already).
  const incoming = byAddr
    ? ((await db.raw(
        `select w.asset_key, sum(w.internal_amount)::text as total from withdrawals w
           join addresses a on a.id = w.to_address_id
          where w.wallet_id = :wallet and w.status in ('signed', 'broadcast') and w.internal_amount > 0 and a.address = :address
          group by w.asset_key`,
        { wallet: scope.walletId, address: scope.address },
      )) as { rows: { asset_key: string; total: string }[] })
    : { rows: [] };
  const out = new Map<string, LedgerFigures>();
  const at = (key: string) => {
    let f = out.get(key);
    if (!f) {
      f = { indexed: 0n, pending: 0n, inFlight: 0n, incomingInFlight: 0n };
      out.set(key, f);
    }
    return f;
  };
  for (const [key, h] of held) {
    at(key).indexed = h.credited;
    at(key).inFlight = h.reserved;
  }
  for (const r of pending.rows) at(r.asset_key).pending = parseBaseUnits(r.total);
  for (const r of incoming.rows) at(r.asset_key).incomingInFlight = parseBaseUnits(r.total);
  return out;
}
