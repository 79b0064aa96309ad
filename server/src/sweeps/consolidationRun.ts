import { BaseError, type AssetRef, type Chain, type UnsignedWithdrawal, type WithdrawalRow, isBaseError } from '@walletd/core';
import type { Common } from '../platform/context';
import type { WalletRow } from '../http/scope';
import { chainAccess } from '../withdrawals/intent';
import { inFlight, onNode, prepareWithdrawal } from '../withdrawals/prepare';
import { proposeWithdrawal } from '../withdrawals/requests/requests';
import { carryOn } from './carryOn';
import { depositAddresses } from './depositAddresses';
import type { SweepRuleRow } from './sweepRule';

/** What one consolidation run came to; `done`: nothing of the run is left to build (its marker can be stored). */
export interface ConsolidationResult {
  sent: number;
  awaitingApproval: number;
  done: boolean;
}

/**
 * A UTXO rule's run (`run`: the schedule window or the latest confirmed deposit of the wallet):
 * the plugin gathers the coins of every deposit address reaching the threshold into one
 * transaction to the destination at the rule's fee rate, an ordinary withdrawal of kind sweep
 * under `sweep:<rule>:<run>:c<part>`. Coins past the standard size go in part 2, 3… each built
 * once the one before is signed (so no two parts share a coin); a part that needs approval stops
 * the run there (its coins would be taken again). A crash mid-run resumes at the first part not made.
 */
export async function consolidationRun(
  common: Common,
  wallet: WalletRow,
  rule: SweepRuleRow,
  asset: AssetRef,
  run: string,
  budget: { left: number },
): Promise<ConsolidationResult> {
  const { db, plugins } = common;
  const result: ConsolidationResult = { sent: 0, awaitingApproval: 0, done: false };
  const access = chainAccess(common.config, plugins, wallet.chain, wallet.network);
  const consolidate = access.verbs.consolidate?.bind(access.verbs);
  if (!consolidate) throw new BaseError('plugin_invalid', `${wallet.chain} has no consolidation`);
  const match = (a: string) => access.plugin.matchKey(wallet.chain as Chain, wallet.network, a);
  for (let part = 1; ; part++) {
    const key = `sweep:${rule.id}:${run}:c${part}`;
    const made = (await db('withdrawals').where({ company_id: wallet.company_id, idempotency_key: key }).first()) as
      | WithdrawalRow
      | undefined;
    if (made) {
      if (made.status === 'prepared' || made.status === 'signed') await carryOn(common, made);
      continue;
    }
    if (await db('withdrawal_requests').where({ company_id: wallet.company_id, idempotency_key: key }).first('id')) return result;
    if (budget.left <= 0) return result;
    const sources = await depositAddresses(common, wallet, rule);
    const reader = access.readers.readerFor(access.settings);
    const built: UnsignedWithdrawal | null = await onNode(wallet.chain, wallet.network, async () =>
      consolidate(
        {
          chain: wallet.chain as Chain,
          network: wallet.network,
          asset,
          to: rule.destination,
          sources,
          threshold: BigInt(rule.threshold),
          ...(rule.fee_rate === null ? {} : { feeRate: BigInt(rule.fee_rate) }),
        },
        reader,
        { inFlight: await inFlight(db, wallet.id) },
      ),
    );
    if (!built) return { ...result, done: true };
    budget.left--;
    const from = built.sourceAddresses[0] as string;
    const intent = {
      asset,
      outputs: [{ to: rule.destination, toKey: match(rule.destination), amount: built.intent.outputs[0]?.amount ?? 0n }],
      from: { address: from, matchKey: match(from) },
    };
    try {
      const { row } = await prepareWithdrawal(common, wallet, {
        intent,
        idempotencyKey: key,
        keyId: null,
        request: null,
        sweepRuleId: rule.id,
        built,
      });
      await carryOn(common, row);
      result.sent++;
    } catch (e) {
      if (!isBaseError(e) || e.code !== 'policy_approval_required') throw e;
      await proposeWithdrawal(db, plugins, wallet, {
        intent,
        note: `sweep rule ${rule.id}: consolidation of ${built.sourceAddresses.length} addresses to ${rule.destination}`,
        idempotencyKey: key,
        keyId: null,
        memberId: null,
        sweepRuleId: rule.id,
        sources: built.sourceAddresses,
      });
      result.awaitingApproval++;
      return result;
    }
  }
}
