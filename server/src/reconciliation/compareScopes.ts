import { type Db, NodeUnavailableError, type PluginRegistry, type WalletdConfig } from '@walletd/core';
import { knownAssets } from '../wallets/transactions';
import { driftOf, knownCauses } from './driftBand';
import { recordCheck } from './recordCheck';
import { type Scope, scopeFigures } from './scopeFigures';

export interface CompareDeps {
  db: Db;
  config: WalletdConfig;
  plugins: PluginRegistry;
}

export interface CompareTally {
  /** Addresses whose balances the node was asked for. */
  addresses: number;
  /** Drifts announced (`reconciliation.drift`). */
  drifts: number;
  cleared: number;
  /** Drifts seen, not yet announced: they wait for their second look (`recheckDrifts`). */
  awaiting: number;
}

/** Compares scopes of one chain with the node; one comparer per run keeps one pace. */
export type ScopeComparer = (scope: Scope, tally: CompareTally) => Promise<void>;

export const emptyTally = (): CompareTally => ({ addresses: 0, drifts: 0, cleared: 0, awaiting: 0 });

/**
 * The comparison of one scope, asset by asset (the native coin and every allow-listed token): the
 * ledger's figures, the node's totals (at most `nodeCallsPerSecond` reads a second), the drift, and
 * `recordCheck`. Null when the chain is not followed or no plugin serves it. A node that fails
 * throws `node_unavailable`.
 */
export function scopeComparer(deps: CompareDeps, key: { chain: string; network: string }): ScopeComparer | null {
  const { db, config, plugins } = deps;
  const settings = config.chains.find((c) => c.chain === key.chain && c.network === key.network);
  const plugin = plugins.forChain(key.chain);
  if (!settings || !plugin) return null;
  const reader = plugins.readerFor(settings);
  const assets = [...knownAssets(config, plugins, key.chain, key.network).values()];
  const nativeKey = plugins.chainTable().nativeAsset(key.chain, key.network).key;
  const known = knownCauses(plugin, key.chain);
  const pace = pacer(config.reconciliation.nodeCallsPerSecond);
  return async (scope, tally) => {
    const figures = await scopeFigures(db, scope, nativeKey);
    for (const asset of assets) {
      let onchain = 0n;
      for (const address of scope.addresses) {
        await pace();
        try {
          onchain += (await reader.getBalance(address, asset)).total;
        } catch (cause) {
          throw new NodeUnavailableError(key.chain, key.network, cause);
        }
      }
      const f = figures.get(asset.key) ?? { indexed: 0n, pending: 0n, inFlight: 0n, incomingInFlight: 0n };
      const { event, awaiting } = await recordCheck(db, { ...key, scope, asset, figures: f, onchain, drift: driftOf(f, onchain, known) });
      if (event === 'reconciliation.drift') tally.drifts++;
      if (event === 'reconciliation.cleared') tally.cleared++;
      if (awaiting) tally.awaiting++;
    }
    tally.addresses += scope.addresses.length;
  };
}

/** Spaces calls at least 1/perSecond apart: the node serves deposits first. */
function pacer(perSecond: number): () => Promise<void> {
  const gap = 1000 / perSecond;
  let nextAt = 0;
  return async () => {
    const now = Date.now();
    const wait = nextAt - now;
    nextAt = Math.max(now, nextAt) + gap;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  };
}
