import { BaseError, type Chain, type UnsignedWithdrawal, fromBaseUnits } from '@walletd/core';
import type { Common } from '../platform/context';
import type { WalletRow } from '../http/scope';
import { pooledFunds } from '../funds/requireFunds';
import { ensureGasStation, stationPaysFees } from './gasStation/gasStation';
import { type ResolvedIntent, chainAccess, totalAmount } from '../withdrawals/intent';
import { inFlight, onNode } from '../withdrawals/prepare';
import { depositAddresses } from './depositAddresses';
import { refuseOverGasCap } from './refuseOverGasCap';
import type { SweepRuleRow } from './sweepRule';

/** What prepare takes beyond the intent so an approved sweep is built as the runner would have built it. */
export interface SweepPlan {
  built?: UnsignedWithdrawal;
  feePayers?: string[];
}

/**
 * An approved sweep request's plan, recomputed from its rule now (nothing but the request is
 * stored, so a crash before or after leaves nothing half-made; prepare's idempotency key is the
 * request's). UTXO: the consolidation of the addresses the proposal gathered (`sources`, or the
 * rule's deposit addresses for a request proposed before they were stored) at the rule's fee
 * rate, all their coins, one output, no change; it must pay exactly the approved amount, or the
 * coins moved since the approval and it is refused (a conflict naming both figures: the rule's
 * next run proposes anew). Solana token sweeps: the gas station is the fee payer, within the
 * rule's gasDailyCap. Elsewhere nothing beyond the intent (an ordinary build from the source).
 */
export async function approvedSweepPlan(
  common: Common,
  wallet: WalletRow,
  ruleId: number,
  intent: ResolvedIntent,
  sources: string[] | undefined,
): Promise<SweepPlan> {
  const rule = (await common.db('sweep_rules').where({ id: ruleId }).first()) as SweepRuleRow | undefined;
  if (!rule) throw new BaseError('not_found', `sweep rule ${ruleId} not found`);
  const access = chainAccess(common.config, common.plugins, wallet.chain, wallet.network);
  const native = common.plugins.chainTable().nativeAsset(wallet.chain, wallet.network);
  const approved = totalAmount(intent);
  if (access.verbs.consolidate && pooledFunds(access.plugin, wallet.chain)) {
    const consolidate = access.verbs.consolidate.bind(access.verbs);
    const from = sources ?? (await depositAddresses(common, wallet, rule));
    const reader = access.readers.readerFor(access.settings);
    const built = await onNode(wallet.chain, wallet.network, async () =>
      consolidate(
        {
          chain: wallet.chain as Chain,
          network: wallet.network,
          asset: intent.asset,
          to: rule.destination,
          sources: from,
          threshold: BigInt(rule.threshold),
          ...(rule.fee_rate === null ? {} : { feeRate: BigInt(rule.fee_rate) }),
        },
        reader,
        { inFlight: await inFlight(common.db, wallet.id) },
      ),
    );
    const now = built?.intent.outputs[0]?.amount ?? 0n;
    if (!built || now !== approved || built.intent.outputs.length !== 1) {
      const show = (units: bigint) => `${fromBaseUnits(units, intent.asset.decimals)} ${intent.asset.symbol}`;
      throw new BaseError(
        'conflict',
        `the coins of this sweep's addresses changed since it was proposed: their consolidation now comes to ${built ? show(now) : 'nothing'}, ${show(approved)} was approved; the rule's next run proposes a new sweep`,
      );
    }
    return { built };
  }
  if (intent.asset.key !== native.key && stationPaysFees(common, wallet) && intent.from) {
    const station = (await ensureGasStation(common, wallet)).address;
    await refuseOverGasCap(common, wallet, rule, intent.asset, intent.from.address, station);
    return { feePayers: [station] };
  }
  return {};
}
