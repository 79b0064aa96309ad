import { createHash } from 'node:crypto';
import {
  type AssetRef,
  BaseError,
  type Chain,
  type ChainPlugin,
  type ChainSettings,
  type PluginRegistry,
  type WalletdConfig,
  type WithdrawalVerbs,
  amountCeiling,
  fromBaseUnits,
} from '@walletd/core';
import type { WalletRow } from '../../http/scope';
import { knownAssets } from '../transactions';
import { intentAmount } from './amountBound';

/** The body of a prepare or a withdrawal request, as the caller sent it (already schema-checked). */
export interface IntentBody {
  asset: string;
  toAddress?: string;
  amount?: string;
  outputs?: { toAddress: string; amount: string }[];
  fromAddress?: string;
  memo?: string;
  destinationTag?: number;
}

export interface ResolvedIntent {
  asset: AssetRef;
  /** Display form of each recipient, its match form, and the amount in base units. */
  outputs: { to: string; toKey: string; amount: bigint }[];
  from: { address: string; matchKey: string } | null;
  memo?: string;
  destinationTag?: number;
}

export interface ChainAccess {
  plugin: ChainPlugin;
  verbs: WithdrawalVerbs;
  settings: ChainSettings;
}

/** The plugin and node for a wallet's chain; a chain without withdrawals or a node is a 422. */
export function chainAccess(config: WalletdConfig, plugins: PluginRegistry, chain: string, network: string): ChainAccess {
  const plugin = plugins.forChain(chain);
  if (!plugin?.withdrawals) throw new BaseError('unprocessable', `withdrawals on ${chain} are not supported by this build`);
  const settings = config.chains.find((c) => c.chain === chain && c.network === network);
  if (!settings) throw new BaseError('unprocessable', `${chain}/${network} is not followed by this service (chains[] in the config)`);
  return { plugin, verbs: plugin.withdrawals, settings };
}

/** An asset key (`ethereum:mainnet:0xa0b8…`) or a symbol (`USDC`, case-insensitive) known on the chain. */
function resolveAsset(config: WalletdConfig, plugins: PluginRegistry, wallet: WalletRow, text: string): AssetRef {
  const assets = knownAssets(config, plugins, wallet.chain, wallet.network);
  const byKey = assets.get(text.toLowerCase()) ?? assets.get(text);
  if (byKey) return byKey;
  const bySymbol = [...assets.values()].filter((a) => a.symbol.toLowerCase() === text.toLowerCase());
  if (bySymbol.length === 1 && bySymbol[0]) return bySymbol[0];
  if (bySymbol.length > 1) throw new BaseError('unprocessable', `the symbol ${text} names several assets here; use the asset key`);
  throw new BaseError(
    'unknown_asset',
    `unknown asset "${text}" on ${wallet.chain}/${wallet.network}; known: ${[...assets.keys()].join(', ') || 'none'}`,
  );
}

/** Validates destinations and amounts and turns them into base units; never a float. */
export function resolveIntent(config: WalletdConfig, plugins: PluginRegistry, wallet: WalletRow, body: IntentBody): ResolvedIntent {
  const plugin = plugins.forChain(wallet.chain);
  if (!plugin) throw new BaseError('unprocessable', `withdrawals on ${wallet.chain} are not supported by this build`);
  const chain = wallet.chain as Chain;
  const single = body.toAddress !== undefined || body.amount !== undefined;
  if (single === (body.outputs !== undefined))
    throw new BaseError('validation_failed', 'give either toAddress and amount, or outputs (several recipients)');
  if (single && (body.toAddress === undefined || body.amount === undefined))
    throw new BaseError('validation_failed', 'toAddress and amount go together');
  const asset = resolveAsset(config, plugins, wallet, body.asset);
  const raw = single ? [{ toAddress: body.toAddress as string, amount: body.amount as string }] : (body.outputs ?? []);
  const address = (text: string, field: string) => {
    if (!plugin.validateAddress(chain, wallet.network, text))
      throw new BaseError('invalid_address', `${field} "${text}" is not a valid ${wallet.chain} ${wallet.network} address`);
    return { display: plugin.formatAddress(chain, wallet.network, text), key: plugin.matchKey(chain, wallet.network, text) };
  };
  // Checked here, before any node call: a node refuses such an amount with an error the caller
  // would be told to retry (502), and the database cannot hold some of them at all.
  const ceiling = amountCeiling(chain, asset.contractAddress === null);
  const tooLarge = (field: string) =>
    new BaseError(
      'invalid_amount',
      `${field} exceeds the largest amount a ${wallet.chain} transfer of ${asset.symbol} can carry (${fromBaseUnits(ceiling, asset.decimals)})`,
    );
  const outputs = raw.map((o, i) => {
    const field = single ? 'toAddress' : `outputs[${i}].toAddress`;
    const a = address(o.toAddress, field);
    const amountField = single ? 'amount' : `outputs[${i}].amount`;
    const amount = intentAmount(o.amount, asset.decimals, () => tooLarge(amountField));
    if (amount > ceiling) throw tooLarge(amountField);
    return { to: a.display, toKey: a.key, amount };
  });
  if (outputs.reduce((sum, o) => sum + o.amount, 0n) > ceiling) throw tooLarge('the total of outputs');
  const from = body.fromAddress === undefined ? null : address(body.fromAddress, 'fromAddress');
  return {
    asset,
    outputs,
    from: from && { address: from.display, matchKey: from.key },
    ...(body.memo !== undefined ? { memo: body.memo } : {}),
    ...(body.destinationTag !== undefined ? { destinationTag: body.destinationTag } : {}),
  };
}

export const totalAmount = (intent: ResolvedIntent): bigint => intent.outputs.reduce((s, o) => s + o.amount, 0n);

/**
 * What an idempotency key is bound to: the normalised intent (match-form addresses, base units),
 * so "0x…ABC" and "0x…abc", or "1.50" and "1.5", are the same request.
 */
export function intentHash(walletId: number, intent: ResolvedIntent): string {
  const canonical = JSON.stringify({
    walletId,
    asset: intent.asset.key,
    outputs: intent.outputs.map((o) => [o.toKey, o.amount.toString()]),
    from: intent.from?.matchKey ?? null,
    memo: intent.memo ?? null,
    destinationTag: intent.destinationTag ?? null,
  });
  return createHash('sha256').update(canonical).digest('hex');
}
