import { type AssetRef, BaseError, fromBaseUnits } from '@walletd/core';
import type { Common } from '../platform/context';
import type { WalletRow } from '../http/scope';
import { quoteFee } from './gasStation/quoteFee';
import { topUpSpending24h } from './gasStation/stationSpending';
import type { SweepRuleRow } from './sweepRule';

/**
 * Solana: the rule's `gasDailyCap` bounds what the station pays as fee payer, as it bounds top-ups
 * elsewhere: the sweep's quoted fee (with the destination's token account rent) must fit beside
 * what the station paid for the rule in the last 24 hours.
 */
export async function refuseOverGasCap(
  common: Common,
  wallet: WalletRow,
  rule: SweepRuleRow,
  asset: AssetRef,
  source: string,
  station: string,
): Promise<void> {
  if (rule.gas_daily_cap === null) return;
  const native = common.plugins.chainTable().nativeAsset(wallet.chain, wallet.network);
  const cap = BigInt(rule.gas_daily_cap);
  const fee = await quoteFee(common, wallet, asset, source, rule.destination, 1n, station);
  const spent = await topUpSpending24h(common.db, { ruleId: rule.id });
  const show = (units: bigint) => `${fromBaseUnits(units, native.decimals)} ${native.symbol}`;
  if (spent + fee > cap)
    throw new BaseError(
      'unprocessable',
      `sweep of ${source} refused: the rule's gasDailyCap is ${show(cap)}, the gas station paid ${show(spent)} for it in the last 24 hours and this sweep's fee is ${show(fee)}`,
    );
}
