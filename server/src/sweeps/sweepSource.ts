import { type AssetRef, BaseError, type Chain, type WithdrawalRow, isBaseError } from '@walletd/core';
import type { Common } from '../platform/context';
import type { WalletRow } from '../http/scope';
import { ledger } from '../funds/ledger';
import { ensureGasStation, stationPaysFees } from './gasStation/gasStation';
import { gasForSweep } from './gasStation/gasTopUp';
import { keptOnSource, quoteFee } from './gasStation/quoteFee';
import { type ResolvedIntent, chainAccess } from '../withdrawals/intent';
import { inFlight, onNode, prepareWithdrawal } from '../withdrawals/prepare';
import { proposeWithdrawal } from '../withdrawals/requests/requests';
import { carryOn } from './carryOn';
import { refuseOverGasCap } from './refuseOverGasCap';
import type { SweepRuleRow } from './sweepRule';

export { carryOn } from './carryOn';

/** What one source address came to in a run. */
export type SweepOutcome =
  | { status: 'below_threshold' }
  | { status: 'sent'; withdrawalId: number; replayed: boolean }
  | { status: 'awaiting_approval'; requestId: number }
  | { status: 'settled'; withdrawalId: number }
  /** A token sweep waits for its gas top-up to confirm (`sent`: the top-up went out in this run). */
  | { status: 'awaiting_gas'; topUpId: number; sent: boolean };

/** What the source may give: credited minus what in-flight withdrawals hold there (the same ledger prepare checks). */
async function available(common: Common, wallet: WalletRow, source: string, asset: AssetRef, native: AssetRef): Promise<bigint> {
  const held = (await ledger(common.db, { walletId: wallet.id, address: source, nativeKey: native.key })).get(asset.key);
  return held ? held.credited - held.reserved : 0n;
}

/**
 * The fee cap of sending at most `upTo` of this asset from `source` now, so the sweep can leave
 * exactly it: the plugin's quote for `upTo` where it has one (a fee may grow with the amount's
 * encoded length; a quote checks neither the source's funds nor the recipient's minimums), else
 * a one-unit transfer built (an EVM native transfer's gas does not depend on the amount).
 */
async function feeCap(common: Common, wallet: WalletRow, source: string, asset: AssetRef, to: string, upTo: bigint): Promise<bigint> {
  const access = chainAccess(common.config, common.plugins, wallet.chain, wallet.network);
  if (access.verbs.quoteFee) return quoteFee(common, wallet, asset, source, to, upTo);
  const reader = access.readers.readerFor(access.settings);
  const unsigned = await onNode(wallet.chain, wallet.network, async () =>
    access.verbs.build(
      { chain: wallet.chain as Chain, network: wallet.network, asset, outputs: [{ to, amount: 1n }], sources: [source] },
      reader,
      { inFlight: await inFlight(common.db, wallet.id) },
    ),
  );
  return unsigned.fee;
}

/**
 * One source address of a rule in one run, under `key` (rule, run window, address: a crash and
 * restart finds the same withdrawal or request by it and never sends twice). The amount is what
 * the address may give less `minLeft`, and, for the native asset, less the fee cap (the
 * transaction pays its own fee; what the fee comes to below its cap stays on the address). A
 * policy asking for approval turns it into a withdrawal request, like any withdrawal above the limit.
 */
export async function sweepSource(
  common: Common,
  wallet: WalletRow,
  rule: SweepRuleRow,
  asset: AssetRef,
  source: string,
  key: string,
  run: string,
): Promise<SweepOutcome> {
  const { db, plugins } = common;
  const done = (await db('withdrawals').where({ company_id: wallet.company_id, idempotency_key: key }).first()) as
    | WithdrawalRow
    | undefined;
  if (done) {
    if (done.status !== 'prepared' && done.status !== 'signed') return { status: 'settled', withdrawalId: done.id };
    return { status: 'sent', withdrawalId: (await carryOn(common, done)).id, replayed: true };
  }
  const asked = (await db('withdrawal_requests').where({ company_id: wallet.company_id, idempotency_key: key }).first('id')) as
    | { id: number }
    | undefined;
  if (asked) return { status: 'awaiting_approval', requestId: asked.id };

  const native = plugins.chainTable().nativeAsset(wallet.chain, wallet.network);
  const free = await available(common, wallet, source, asset, native);
  if (free < BigInt(rule.threshold)) return { status: 'below_threshold' };
  let amount = free - BigInt(rule.min_left);
  // What the chain makes the address keep (an existential deposit) stays with the fee.
  if (asset.key === native.key)
    amount -=
      (await feeCap(common, wallet, source, asset, rule.destination, amount)) +
      (await keptOnSource(common, wallet, asset, source, rule.destination));
  if (amount <= 0n) return { status: 'below_threshold' };
  // A token address that cannot pay the fee gets it from the gas station first (where the plugin quotes fees).
  const gas = await gasForSweep(common, wallet, rule, asset, source, run, amount);
  if (!gas.ready) return { status: 'awaiting_gas', topUpId: gas.withdrawalId, sent: gas.sent };

  const plugin = plugins.forChain(wallet.chain);
  if (!plugin) throw new BaseError('unprocessable', `no plugin serves ${wallet.chain}`);
  // Solana: a token sweep's fee (and the destination's token account rent) comes from the source
  // when it holds the SOL, otherwise from the gas station, never from another address of the wallet.
  const feePayers =
    asset.key !== native.key && stationPaysFees(common, wallet) ? [(await ensureGasStation(common, wallet)).address] : undefined;
  if (feePayers) await refuseOverGasCap(common, wallet, rule, asset, source, feePayers[0] as string);
  const match = (a: string) => plugin.matchKey(wallet.chain as Chain, wallet.network, a);
  const intent: ResolvedIntent = {
    asset,
    outputs: [{ to: rule.destination, toKey: match(rule.destination), amount }],
    from: { address: source, matchKey: match(source) },
  };
  try {
    const { row, replayed } = await prepareWithdrawal(common, wallet, {
      intent,
      idempotencyKey: key,
      keyId: null,
      request: null,
      sweepRuleId: rule.id,
      ...(feePayers ? { feePayers } : {}),
    });
    return { status: 'sent', withdrawalId: (await carryOn(common, row)).id, replayed };
  } catch (e) {
    if (!isBaseError(e) || e.code !== 'policy_approval_required') throw e;
    const { row } = await proposeWithdrawal(db, plugins, wallet, {
      intent,
      note: `sweep rule ${rule.id}: ${source} to ${rule.destination}`,
      idempotencyKey: key,
      keyId: null,
      memberId: null,
      sweepRuleId: rule.id,
    });
    return { status: 'awaiting_approval', requestId: row.id };
  }
}
