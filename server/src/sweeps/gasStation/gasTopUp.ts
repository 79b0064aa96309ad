import { type AssetRef, BaseError, type Chain, type WithdrawalRow, fromBaseUnits } from '@walletd/core';
import type { Common } from '../../platform/context';
import type { WalletRow } from '../../http/scope';
import { RESERVING, ledger } from '../../funds/ledger';
import { carryOn } from '../carryOn';
import type { SweepRuleRow } from '../sweepRule';
import { knownAssets } from '../../wallets/transactions';
import { prepareWithdrawal } from '../../withdrawals/prepare';
import { TOP_UP_MARGIN_PERCENT, ensureGasStation, refuseNoGasStation, stationPaysFees } from './gasStation';
import { keptOnSource, quoteFee, withMargin } from './quoteFee';
import { topUpSpending24h } from './stationSpending';

/** Whether a token sweep can go now, or waits for a top-up on its way (`sent`: made by this call). */
export type GasState = { ready: true } | { ready: false; withdrawalId: number; sent: boolean };

const waiting = async (common: Common, row: WithdrawalRow, sent: boolean): Promise<GasState> => {
  const cur = row.status === 'prepared' || row.status === 'signed' ? await carryOn(common, row) : row;
  return { ready: false, withdrawalId: cur.id, sent };
};

/**
 * Only tokens the chain's configuration lists: anyone can send an address a token of their own
 * making, and paying gas to move it is how a dust attack lures a sweeper into burning fees.
 */
function refuseUnlisted(common: Common, wallet: WalletRow, asset: AssetRef): void {
  const listed = knownAssets(common.config, common.plugins, wallet.chain, wallet.network).get(asset.key);
  if (!listed || listed.contractAddress?.toLowerCase() !== asset.contractAddress?.toLowerCase())
    throw new BaseError(
      'unknown_asset',
      `${asset.symbol} (${asset.contractAddress}) is not allow-listed on ${wallet.chain}/${wallet.network}: no gas top-up for it`,
    );
}

/**
 * Before a token sweep of `amount` from `source`: whether the address can pay the fee the node
 * quotes now and keep what the chain makes it keep (an existential deposit). If not, the station
 * sends it exactly that fee plus the margin, plus what it must keep (less what the address
 * already has) as a withdrawal of kind `gas_topup` under `gas_topup:<rule>:<run>:<address>`
 * (reserved, policy-checked, tracked like any withdrawal), and the sweep waits for it to confirm:
 * a later tick finds the key and sweeps. One top-up per rule, run and address, and none while
 * another to the address is still on its way, whatever a crash or a new window did in between.
 */
export async function gasForSweep(
  common: Common,
  wallet: WalletRow,
  rule: SweepRuleRow,
  asset: AssetRef,
  source: string,
  run: string,
  amount: bigint,
): Promise<GasState> {
  const { db, plugins } = common;
  const native = plugins.chainTable().nativeAsset(wallet.chain, wallet.network);
  // Solana: the station is the sweep's fee payer (sweepSource), nothing to send first.
  if (asset.key === native.key || stationPaysFees(common, wallet)) return { ready: true };
  const key = `gas_topup:${rule.id}:${run}:${source}`;
  const mine = (await db('withdrawals').where({ company_id: wallet.company_id, idempotency_key: key }).first()) as
    | WithdrawalRow
    | undefined;
  if (mine) {
    if (mine.status === 'confirmed') return { ready: true };
    if (mine.status === 'rejected' || mine.status === 'cancelled')
      throw new BaseError('unprocessable', `gas top-up ${mine.id} to ${source} was ${mine.status}; the next run tops the address up again`);
    return waiting(common, mine, false);
  }
  const onItsWay = (await db('withdrawals')
    .where({ wallet_id: wallet.id, kind: 'gas_topup', to_address: source })
    .whereIn('status', [...RESERVING])
    .orderBy('id')
    .first()) as WithdrawalRow | undefined;
  if (onItsWay) return waiting(common, onItsWay, false);
  try {
    refuseNoGasStation(common, wallet);
  } catch {
    return { ready: true }; // no station on this chain: the sweep says what it lacks
  }
  refuseUnlisted(common, wallet, asset);

  const fee = await quoteFee(common, wallet, asset, source, rule.destination, amount);
  const kept = await keptOnSource(common, wallet, asset, source, rule.destination);
  const held = (await ledger(db, { walletId: wallet.id, address: source, nativeKey: native.key })).get(native.key);
  const available = held ? held.credited - held.reserved : 0n;
  if (available >= fee + kept) return { ready: true };
  const station = await ensureGasStation(common, wallet);
  const topUp = withMargin(fee, TOP_UP_MARGIN_PERCENT) + kept - (available > 0n ? available : 0n);
  if (rule.gas_daily_cap !== null) {
    const cap = BigInt(rule.gas_daily_cap);
    const ownFee = await quoteFee(common, wallet, native, station.address, source, 1n);
    const spent = await topUpSpending24h(db, { ruleId: rule.id });
    const show = (units: bigint) => `${fromBaseUnits(units, native.decimals)} ${native.symbol}`;
    if (spent + topUp + ownFee > cap)
      throw new BaseError(
        'unprocessable',
        `gas top-up of ${source} refused: the rule's gasDailyCap is ${show(cap)}, its top-ups took ${show(spent)} in the last 24 hours and this one needs ${show(topUp + ownFee)} with its fee`,
      );
  }
  const match = (a: string) => plugins.forChain(wallet.chain)?.matchKey(wallet.chain as Chain, wallet.network, a) ?? a;
  const { row, replayed } = await prepareWithdrawal(common, wallet, {
    intent: {
      asset: native,
      outputs: [{ to: source, toKey: match(source), amount: topUp }],
      from: { address: station.address, matchKey: station.match_key },
    },
    idempotencyKey: key,
    keyId: null,
    request: null,
    sweepRuleId: rule.id,
    kind: 'gas_topup',
  });
  return waiting(common, row, !replayed);
}
