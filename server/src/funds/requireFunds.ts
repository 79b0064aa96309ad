import {
  type AssetRef,
  BaseError,
  type ChainPlugin,
  chainTableOf,
  type WithdrawalRow,
  fromBaseUnits,
  unsignedFromRow,
} from '@walletd/core';
import type { Knex } from 'knex';
import { type LedgerScope, type ReservingStatus, holders, ledger } from './ledger';

/**
 * Whether a wallet's funds are one pool (UTXO coins: any coin pays any output; an account-tag
 * wallet's one account) or each address pays only with what it holds (account chains).
 */
export function pooledFunds(plugin: ChainPlugin, chain: string): boolean {
  const definition = plugin.chains.find((c) => c.chain === chain);
  return !definition || definition.addressing === 'account-tag' || definition.capabilities.multipleOutputs;
}

export interface FundsNeed {
  walletId: number;
  pooled: boolean;
  asset: AssetRef;
  native: AssetRef;
  amount: bigint;
  /** The fee cap, in the native asset. */
  fee: bigint;
  /** Pays the amount (account chains). */
  source: string;
  /** Pays the fee: the last source address (Solana's fee payer), else the source. */
  feePayer: string;
  /** Statuses that count against it: every in-flight one at prepare and sign, only sent ones at broadcast. */
  reserving?: readonly ReservingStatus[];
  /** The withdrawal itself when it is already recorded (its own reservation is `amount` + `fee` here). */
  exceptId?: number;
}

interface Need {
  address: string | null;
  asset: AssetRef;
  units: bigint;
}

/** What must be available where: merged when the amount and the fee come from the same place. */
function needs(n: FundsNeed): Need[] {
  const amountAt = n.pooled ? null : n.source;
  const feeAt = n.pooled ? null : n.feePayer;
  if (n.asset.key === n.native.key && amountAt === feeAt) return [{ address: amountAt, asset: n.asset, units: n.amount + n.fee }];
  return [
    { address: amountAt, asset: n.asset, units: n.amount },
    { address: feeAt, asset: n.native, units: n.fee },
  ].filter((x) => x.units > 0n);
}

/**
 * Refuses (422 `insufficient_funds`) what the available funds cannot pay: credited minus what
 * in-flight withdrawals hold, per source address on account chains, per wallet where funds are
 * pooled. Call inside the transaction that records the reservation, after `lockWalletFunds`, so
 * parallel calls decide one after the other.
 */
export async function requireFunds(trx: Knex.Transaction, n: FundsNeed): Promise<void> {
  for (const need of needs(n)) {
    const scope: LedgerScope = {
      walletId: n.walletId,
      address: need.address,
      nativeKey: n.native.key,
      ...(n.reserving ? { reserving: n.reserving } : {}),
      ...(n.exceptId !== undefined ? { exceptId: n.exceptId } : {}),
    };
    const held = (await ledger(trx, scope)).get(need.asset.key) ?? { credited: 0n, reserved: 0n };
    const available = held.credited - held.reserved;
    if (available >= need.units) continue;
    const show = (units: bigint) => `${fromBaseUnits(units < 0n ? 0n : units, need.asset.decimals)} ${need.asset.symbol}`;
    const by = await holders(trx, scope, need.asset.key);
    const where = need.address ?? `wallet ${n.walletId}`;
    const what = need.asset.key === n.asset.key ? (need.asset.key === n.native.key ? 'amount plus fee cap' : 'amount') : 'fee cap';
    throw new BaseError(
      'insufficient_funds',
      `${where} has ${show(available)} available (${show(held.credited)} confirmed, ${show(held.reserved)} reserved` +
        `${by.length ? ` by withdrawals ${by.join(', ')}` : ''}); this withdrawal needs ${show(need.units)} (${what})`,
      {
        details: {
          available: fromBaseUnits(available < 0n ? 0n : available, need.asset.decimals),
          ...(by.length ? { reservedBy: by.join(',') } : {}),
        },
      },
    );
  }
}

/** What a stored withdrawal needs available at its source, its own reservation left out. */
export function fundsNeedOf(row: WithdrawalRow, plugin: ChainPlugin): FundsNeed {
  return {
    walletId: row.wallet_id,
    pooled: pooledFunds(plugin, row.chain),
    asset: row.asset,
    native: chainTableOf(plugin.chains).nativeAsset(row.chain, row.network),
    amount: BigInt(row.amount),
    fee: unsignedFromRow(row).fee,
    source: row.from_address,
    feePayer: row.source_addresses.at(-1) ?? row.from_address,
    exceptId: row.id,
  };
}
