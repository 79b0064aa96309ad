import { type AssetRef, BaseError, fromBaseUnits, parseBaseUnits, toBaseUnits } from '@walletd/core';
import type { Common } from '../platform/context';
import type { WalletRow } from '../http/scope';
import { knownAssets } from '../wallets/transactions';

/** A stored sweep rule (migration 025). Amounts in base units. */
export interface SweepRuleRow {
  id: number;
  company_id: number;
  wallet_id: number;
  asset_key: string;
  destination: string;
  threshold: string;
  min_left: string;
  trigger: 'schedule' | 'deposit';
  interval_seconds: number | null;
  enabled: boolean;
  created_by_key: number | null;
  last_window: string | null;
  last_run_at: Date | null;
  last_error: string | null;
  /** What the rule's gas top-ups may take from the station in 24 hours, native base units; null: no cap (migration 029). */
  gas_daily_cap: string | null;
  /** UTXO rules: base units per vbyte of the consolidation; null: the node's estimate, capped (migration 030). */
  fee_rate: string | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

/** The fields a caller sends (already schema-checked), display units. */
export interface SweepRuleBody {
  asset?: string;
  destination?: string;
  threshold?: string;
  minLeft?: string;
  trigger?: 'schedule' | 'deposit';
  intervalSeconds?: number;
  enabled?: boolean;
  /** Native display units; null removes the cap. */
  gasDailyCap?: string | null;
  /** UTXO rules: base units per vbyte; null goes back to the node's estimate. */
  feeRate?: number | null;
}

/** The rule's asset as walletd knows it on the wallet's chain (a token taken out of the config is an error, named). */
export function ruleAsset(common: Pick<Common, 'config' | 'plugins'>, wallet: Pick<WalletRow, 'chain' | 'network'>, key: string): AssetRef {
  const asset = knownAssets(common.config, common.plugins, wallet.chain, wallet.network).get(key);
  if (!asset) throw new BaseError('unknown_asset', `sweep asset ${key} is no longer known on ${wallet.chain}/${wallet.network}`);
  return asset;
}

/** 2^256 − 1, the largest ceiling of any chain: what a numeric(78,0) column holds, with room to spare. */
const MAX_RULE_BASE_UNITS = 2n ** 256n - 1n;

/**
 * A display amount in base units: exact, never a float; `field` names it in the 400. An amount
 * beyond 2^256 − 1 base units is refused the same way (it once reached the numeric(78,0) column
 * and answered 500); the digits are counted first, so a 5,000-digit amount costs nothing.
 */
export function ruleAmount(text: string, asset: AssetRef, field: string, allowZero: boolean): bigint {
  try {
    if ((text.split('.')[0] ?? '').replace(/^0+/, '').length > 78) throw new BaseError('input_invalid', 'too long');
    const units = toBaseUnits(text, asset.decimals, { allowZero });
    if (units > MAX_RULE_BASE_UNITS) throw new BaseError('input_invalid', 'too large');
    return units;
  } catch {
    throw new BaseError(
      'invalid_amount',
      `${field} "${text.slice(0, 100)}" is not ${allowZero ? 'a' : 'a positive'} ${asset.symbol} amount with at most ${asset.decimals} decimals and at most 2^256 − 1 base units`,
    );
  }
}

/** The trigger and its interval together: a schedule needs one, a deposit trigger takes none. */
export function checkTrigger(trigger: SweepRuleRow['trigger'], intervalSeconds: number | null): void {
  if (trigger === 'schedule' && intervalSeconds === null)
    throw new BaseError('validation_failed', 'intervalSeconds is required with trigger "schedule" (60 to 2592000)');
  if (trigger === 'deposit' && intervalSeconds !== null)
    throw new BaseError('validation_failed', 'intervalSeconds goes with trigger "schedule"; remove it for trigger "deposit"');
}

export interface SweepRuleView {
  id: number;
  walletId: number;
  asset: AssetRef;
  destination: string;
  threshold: string;
  minLeft: string;
  trigger: SweepRuleRow['trigger'];
  intervalSeconds: number | null;
  enabled: boolean;
  gasDailyCap: string | null;
  feeRate: number | null;
  lastRunAt: string | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

/** `native`: the chain's native asset, in which the gas cap is counted. */
export function toSweepRuleView(row: SweepRuleRow, asset: AssetRef, native: AssetRef): SweepRuleView {
  const { key, symbol, decimals, contractAddress } = asset;
  const show = (units: string) => fromBaseUnits(parseBaseUnits(units), decimals);
  return {
    id: row.id,
    walletId: row.wallet_id,
    asset: { key, symbol, decimals, contractAddress },
    destination: row.destination,
    threshold: show(row.threshold),
    minLeft: show(row.min_left),
    trigger: row.trigger,
    intervalSeconds: row.interval_seconds,
    enabled: row.enabled,
    gasDailyCap: row.gas_daily_cap === null ? null : fromBaseUnits(parseBaseUnits(row.gas_daily_cap), native.decimals),
    feeRate: row.fee_rate === null ? null : Number(row.fee_rate),
    lastRunAt: row.last_run_at ? row.last_run_at.toISOString() : null,
    lastError: row.last_error,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
