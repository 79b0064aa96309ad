import { BaseError, type Chain, type ChainPlugin, type PluginRegistry, type WalletdConfig } from '@walletd/core';
import type { Knex } from 'knex';
import type { Common } from '../platform/context';
import type { WalletRow } from '../http/scope';
import { chainNotServed } from '../wallets/chainNotServed';
import { knownAssets } from '../wallets/transactions';
import { type IntentBody, type ResolvedIntent, memoFields, resolveIntent } from './intent';

/**
 * The address that will pay, where it is known before prepare chooses one by balance: the
 * `fromAddress`, the account of an account-tag wallet (XRP: it always pays), or a wallet's only
 * deposit address. Empty otherwise: `build` checks against the chosen source at prepare.
 */
async function knownSource(db: Knex, wallet: WalletRow, intent: ResolvedIntent): Promise<string[]> {
  if (intent.from) return [intent.from.address];
  const rows = (await db('addresses')
    .where({ wallet_id: wallet.id })
    .whereIn('kind', ['account', 'deposit'])
    .whereNull('destination_tag')
    .orderBy('derivation_index')
    .limit(2)
    .select('address', 'kind')) as { address: string; kind: string }[];
  const account = rows.find((r) => r.kind === 'account');
  if (account) return [account.address];
  return rows.length === 1 && rows[0] ? [rows[0].address] : [];
}

/**
 * A destination that is the contract of an asset walletd knows on this chain (an EVM or TRC-20
 * token, a Solana mint, a jetton master): coins and tokens sent to a token's own contract stay
 * there. A contract written `<program>:<address>` (Solana `token-2022:<mint>`) is compared by its address.
 */
function refuseAssetContracts(
  config: WalletdConfig,
  plugins: PluginRegistry,
  plugin: ChainPlugin,
  wallet: WalletRow,
  intent: ResolvedIntent,
): void {
  const chain = wallet.chain as Chain;
  for (const asset of knownAssets(config, plugins, chain, wallet.network).values()) {
    const contract = asset.contractAddress;
    if (!contract) continue;
    for (const text of new Set([contract, contract.slice(contract.lastIndexOf(':') + 1)])) {
      if (!plugin.validateAddress(chain, wallet.network, text)) continue;
      const key = plugin.matchKey(chain, wallet.network, text);
      const hit = intent.outputs.find((o) => o.toKey === key);
      if (hit)
        throw new BaseError(
          'invalid_address',
          `${hit.to} is the contract of ${asset.symbol} (${asset.key}): what is sent to a token's own contract stays there`,
        );
    }
  }
}

/**
 * The one check of a withdrawal's intent, for a prepare and for a withdrawal request alike (a
 * request reaches the node only after its approval, so it must not be let through what prepare
 * would refuse): the body resolved (addresses, amounts, capabilities), destinations that burn
 * funds, and the plugin's node-free refusals (`checkIntent`: a tag in the address against
 * `destinationTag`, a payment to the paying address itself).
 */
export async function checkedIntent(common: Common, wallet: WalletRow, body: IntentBody): Promise<ResolvedIntent> {
  const { db, config, plugins } = common;
  const intent = resolveIntent(config, plugins, wallet, body);
  const plugin = plugins.forChain(wallet.chain);
  if (!plugin) throw chainNotServed(wallet.chain, 'withdrawals');
  refuseAssetContracts(config, plugins, plugin, wallet, intent);
  plugin.withdrawals?.checkIntent?.({
    chain: wallet.chain as Chain,
    network: wallet.network,
    asset: intent.asset,
    outputs: intent.outputs.map((o) => ({ to: o.to, amount: o.amount, ...memoFields(o) })),
    sources: await knownSource(db, wallet, intent),
  });
  return intent;
}
