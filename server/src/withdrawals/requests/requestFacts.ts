import { type Db, fromBaseUnits, type PluginRegistry, type WalletdConfig } from '@walletd/core';
import type { ConsoleRequestFacts } from '@walletd/schemas';
import { ledger } from '../../funds/ledger';
import { decidePolicies, loadPolicies } from '../policies/policies';
import { toConsolePolicy, walletNames } from '../policies/policyView';
import { type RequestRow, storedOutputs, toIntent } from './requestView';

/**
 * The facts an approver weighs (issue 47 §4): what the wallet has of the asset now, whether the
 * company paid each destination before and under which address-book name, and the sentence of each
 * policy that asks for the approval. Read when the request page opens; nothing here is stored.
 */
export async function requestFacts(
  deps: { db: Db; config: WalletdConfig; plugins: PluginRegistry },
  row: RequestRow,
): Promise<ConsoleRequestFacts> {
  const { db, plugins } = deps;
  const wallet = (await db('wallets').where({ id: row.wallet_id }).first('id', 'company_id', 'chain', 'network')) as {
    id: number;
    company_id: number;
    chain: string;
    network: string;
  };
  const asset = row.intent.asset;
  const nativeKey = plugins.chainTable().nativeAsset(wallet.chain, wallet.network).key;
  const held = (await ledger(db, { walletId: wallet.id, address: null, nativeKey })).get(asset.key);
  const available = held ? held.credited - held.reserved : 0n;
  const destinations = await Promise.all(
    storedOutputs(row.intent).map(async (o) => {
      const paid = (await db('withdrawals')
        .where({ company_id: row.company_id, chain: wallet.chain, network: wallet.network, to_address: o.toAddress, status: 'confirmed' })
        // This request's own payout is not a payment "before" it.
        .where((q) => q.whereNull('request_id').orWhereNot('request_id', row.id))
        .count<{ n: string }>({ n: '*' })
        .first()) as { n: string } | undefined;
      const entry = (await db('address_book_entries')
        .where({ company_id: row.company_id, chain: wallet.chain, network: wallet.network, match_key: o.toKey })
        .whereNull('removed_at')
        .where((q) => q.whereNull('wallet_id').orWhere('wallet_id', wallet.id))
        .first('name')) as { name: string } | undefined;
      return { address: o.toAddress, paidBefore: Number(paid?.n ?? 0), addressBook: entry?.name ?? null };
    }),
  );
  const decision = await decidePolicies(db, plugins, wallet, toIntent(row.intent), 0);
  const asking = new Set(decision.outcome === 'refuse' ? decision.policyIds.split(',').filter(Boolean).map(Number) : []);
  const names = await walletNames(db, row.company_id);
  const policies = (await loadPolicies(db, row.company_id))
    .filter((p) => asking.has(p.id))
    .map((p) => ({ id: p.id, sentence: toConsolePolicy(deps, p, names).sentence }));
  return { available: fromBaseUnits(available < 0n ? 0n : available, asset.decimals), symbol: asset.symbol, destinations, policies };
}
