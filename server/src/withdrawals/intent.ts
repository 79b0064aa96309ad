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
  fromBaseUnits,
} from '@walletd/core';
import { outputMemo } from '@walletd/core';
import type { WalletRow } from '../http/scope';
import { refusePaddedAddress } from './addressText';
import { chainNotServed } from '../wallets/chainNotServed';
import { knownAssets } from '../wallets/transactions';
import { intentAmount } from './amountBound';

/** The body of a prepare or a withdrawal request, as the caller sent it (already schema-checked). */
export interface IntentBody {
  asset: string;
  toAddress?: string;
  amount?: string;
  outputs?: { toAddress: string; amount: string; memo?: string; destinationTag?: number }[];
  fromAddress?: string;
  /** With toAddress + amount: the one recipient's memo (with `outputs`, each output carries its own). */
  memo?: string;
  destinationTag?: number;
}

/** One recipient: display form, match form, base units, and what the transaction carries for it. */
export interface ResolvedOutput {
  to: string;
  toKey: string;
  amount: bigint;
  memo?: string;
  destinationTag?: number;
}

export interface ResolvedIntent {
  asset: AssetRef;
  outputs: ResolvedOutput[];
  from: { address: string; matchKey: string } | null;
}

/** The memo and tag of an output, only those present (a stored or built output never holds undefined). */
export const memoFields = outputMemo;

/**
 * What the chain's transactions can carry (its plugin's `capabilities`): a memo, a destination
 * tag or several recipients it cannot carry is refused (400), never dropped. `fields` names each
 * output's memo and tag as the caller wrote them.
 */
export function checkCapabilities(
  plugin: ChainPlugin,
  chain: string,
  network: string,
  outputs: { memo?: string; destinationTag?: number }[],
  fields: (i: number, field: 'memo' | 'destinationTag') => string = (i, field) => `outputs[${i}].${field}`,
): void {
  const definition = plugin.chains.find((c) => c.chain === chain);
  if (!definition) throw new BaseError('unprocessable', `withdrawals on ${chain} are not supported by this build`);
  const can = definition.capabilities;
  if (outputs.length > 1 && !can.multipleOutputs)
    throw new BaseError('validation_failed', `outputs: a ${chain} ${network} withdrawal pays exactly one recipient`);
  outputs.forEach((o, i) => {
    if (o.memo !== undefined && !can.memo)
      throw new BaseError('validation_failed', `${fields(i, 'memo')}: ${chain} ${network} transactions cannot carry a memo; remove it`);
    if (o.destinationTag !== undefined && !can.destinationTag)
      throw new BaseError(
        'validation_failed',
        `${fields(i, 'destinationTag')}: ${chain} ${network} transactions cannot carry a destination tag; remove it`,
      );
  });
}

export interface ChainAccess {
  plugin: ChainPlugin;
  verbs: WithdrawalVerbs;
  settings: ChainSettings;
  /** The process's shared readers (one per chain/network). */
  readers: PluginRegistry;
}

/** The plugin and node for a wallet's chain; a chain without withdrawals or a node is a 422. */
export function chainAccess(config: WalletdConfig, plugins: PluginRegistry, chain: string, network: string): ChainAccess {
  const plugin = plugins.forChain(chain);
  if (!plugin) throw chainNotServed(chain, 'withdrawals');
  if (!plugin.withdrawals) throw new BaseError('unprocessable', `withdrawals on ${chain} are not supported by this build`);
  const settings = config.chains.find((c) => c.chain === chain && c.network === network);
  if (!settings) throw new BaseError('unprocessable', `${chain}/${network} is not followed by this service (chains[] in the config)`);
  return { plugin, verbs: plugin.withdrawals, settings, readers: plugins };
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
  if (!plugin) throw chainNotServed(wallet.chain, 'withdrawals');
  const chain = wallet.chain as Chain;
  const single = body.toAddress !== undefined || body.amount !== undefined;
  if (single === (body.outputs !== undefined))
    throw new BaseError('validation_failed', 'give either toAddress and amount, or outputs (several recipients)');
  if (single && (body.toAddress === undefined || body.amount === undefined))
    throw new BaseError('validation_failed', 'toAddress and amount go together');
  for (const field of ['memo', 'destinationTag'] as const) {
    if (!single && body[field] !== undefined)
      throw new BaseError(
        'validation_failed',
        `${field} at the top level goes with toAddress and amount; with outputs give outputs[i].${field}`,
      );
  }
  const raw = single ? [{ toAddress: body.toAddress as string, amount: body.amount as string, ...memoFields(body) }] : (body.outputs ?? []);
  // Before anything else about the outputs: what the chain cannot carry is named as the caller sent it.
  checkCapabilities(plugin, wallet.chain, wallet.network, raw, single ? (_i, field) => field : undefined);
  const asset = resolveAsset(config, plugins, wallet, body.asset);
  const address = (text: string, field: string) => {
    refusePaddedAddress(text, field);
    if (!plugin.validateAddress(chain, wallet.network, text))
      throw new BaseError('invalid_address', `${field} "${text}" is not a valid ${wallet.chain} ${wallet.network} address`);
    return { display: plugin.formatAddress(chain, wallet.network, text), key: plugin.matchKey(chain, wallet.network, text) };
  };
  // Checked here, before any node call: a node refuses such an amount with an error the caller
  // would be told to retry (502), and the database cannot hold some of them at all.
  const ceiling = plugins.chainTable().ceiling(wallet.chain, asset.contractAddress === null);
  if (ceiling === undefined) throw chainNotServed(wallet.chain, 'withdrawals');
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
    return { to: a.display, toKey: a.key, amount, ...memoFields(o) };
  });
  if (outputs.reduce((sum, o) => sum + o.amount, 0n) > ceiling) throw tooLarge('the total of outputs');
  const from = body.fromAddress === undefined ? null : address(body.fromAddress, 'fromAddress');
  return {
    asset,
    outputs,
    from: from && { address: from.display, matchKey: from.key },
  };
}

export const totalAmount = (intent: ResolvedIntent): bigint => intent.outputs.reduce((s, o) => s + o.amount, 0n);

/**
 * What an idempotency key is bound to: the normalised intent (match-form addresses, base units),
 * so "0x…ABC" and "0x…abc", or "1.50" and "1.5", are the same request. The form is the one keys
 * were bound to before memos were per output: one recipient's memo and tag sit at the top level
 * (so `toAddress` + `memo` and `outputs: [{toAddress, memo}]` are the same request), and an output
 * of several carries `[key, amount]`, with its memo and tag appended only when it has either.
 */
export function intentHash(walletId: number, intent: ResolvedIntent): string {
  const one = intent.outputs.length === 1 ? intent.outputs[0] : undefined;
  const canonical = JSON.stringify({
    walletId,
    asset: intent.asset.key,
    outputs: intent.outputs.map((o) =>
      one || (o.memo === undefined && o.destinationTag === undefined)
        ? [o.toKey, o.amount.toString()]
        : [o.toKey, o.amount.toString(), o.memo ?? null, o.destinationTag ?? null],
    ),
    from: intent.from?.matchKey ?? null,
    memo: one?.memo ?? null,
    destinationTag: one?.destinationTag ?? null,
  });
  return createHash('sha256').update(canonical).digest('hex');
}
