import type { Chain } from '@walletd/core';
import type { Common } from '../platform/context';
import type { WalletRow } from '../http/scope';
import type { SweepRuleRow } from './sweepRule';

/** The wallet's deposit addresses other than the rule's destination, in derivation order (what a consolidation may gather). */
export async function depositAddresses(common: Common, wallet: WalletRow, rule: Pick<SweepRuleRow, 'destination'>): Promise<string[]> {
  const plugin = common.plugins.forChain(wallet.chain);
  const match = (a: string) => plugin?.matchKey(wallet.chain as Chain, wallet.network, a) ?? a;
  const rows = (await common
    .db('addresses')
    .where({ wallet_id: wallet.id, kind: 'deposit' })
    .whereNull('destination_tag')
    .orderBy('derivation_index')
    .pluck('address')) as string[];
  return rows.filter((a) => match(a) !== match(rule.destination));
}
