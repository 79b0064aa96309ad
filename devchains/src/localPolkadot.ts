import '@polkadot/api-augment';
import { ApiPromise, HttpProvider, Keyring } from '@polkadot/api';
import { startChopsticks } from './chopsticks';
import { rpc } from './devnetRpc';
import type { FundRequest, LocalChain, LocalChainInfo } from './localChain';
import { extrinsicOutcome } from './polkadotOutcome';
import { BaseError } from '@walletd/core';

/** The local asset: id 1984 and 6 decimals, as USDT on the real Asset Hub. */
export const LOCAL_POLKADOT_ASSET = { id: 1984, symbol: 'USDT', decimals: 6 } as const;

/**
 * Polkadot on chopsticks for `walletd serve` (polkadot/localnet): the Rococo Asset Hub runtime on
 * `port`, a block for each submitted transaction (`Instant`: no empty blocks while idle; chopsticks'
 * finalized head is its best head), and the asset USDT (id 1984) created and minted by `//Alice`.
 * The asset is made sufficient, as USDT is on Asset Hub, so it can be the first thing an address
 * receives. Chopsticks keeps its state in memory only (its database needs the sqlite3 build that
 * the install declines): each start is a new chain.
 */
export async function startLocalPolkadot(options: { port: number }): Promise<LocalChain> {
  const node = await startChopsticks({ port: options.port, buildBlockMode: 'Instant' });
  try {
    const { id, symbol, decimals } = LOCAL_POLKADOT_ASSET;
    await node.createAsset(id, 1000n, 10n ** 18n);
    await node.newBlock([await node.sign(node.api.tx.assets.setMetadata(id, 'Local USDT', symbol, decimals))]);
    const details = (await node.api.query.assets.asset(id)).toJSON() as Record<string, unknown>;
    await node.rpc('dev_setStorage', [{ Assets: { Asset: [[[id], { ...details, isSufficient: true }]] } }]);
    const genesis = (await node.api.rpc.chain.getBlockHash(0)).toHex();
    return {
      fresh: true,
      info: {
        chain: 'polkadot',
        network: 'localnet',
        rpcUrl: node.url,
        tokens: [{ contract: String(id), symbol, decimals }],
        genesis,
        pid: process.pid,
        settings: { pollIntervalMs: 500, startBlock: Number(await node.head()) + 1 },
      },
      stop: () => node.stop(),
    };
  } catch (err) {
    await node.stop();
    throw err;
  }
}

/**
 * `walletd dev fund` on the local Polkadot chain: a transfer signed by `//Alice` (ROC, or the local
 * USDT by symbol), submitted to chopsticks, which builds its block at once. Returns the
 * extrinsic's hash once its block executed it successfully; throws with the dispatch error when
 * the block executed it as failed (accepted by the pool is not paid).
 */
export async function fundLocalPolkadot(rpcUrl: string, request: FundRequest): Promise<string> {
  const token = request.token?.toUpperCase();
  if (token !== undefined && token !== LOCAL_POLKADOT_ASSET.symbol) {
    throw new BaseError('input_invalid', `the local Polkadot chain has one token: ${LOCAL_POLKADOT_ASSET.symbol} (not ${request.token})`);
  }
  const api = await ApiPromise.create({ provider: new HttpProvider(rpcUrl), noInitWarn: true, throwOnConnect: true });
  try {
    const alice = new Keyring({ type: 'sr25519', ss58Format: 42 }).addFromUri('//Alice');
    const tx =
      token === undefined
        ? api.tx.balances.transferKeepAlive(request.address, request.amount)
        : api.tx.assets.transferKeepAlive(LOCAL_POLKADOT_ASSET.id, request.address, request.amount);
    const nonce = await api.rpc.system.accountNextIndex(alice.address);
    const signed = await tx.signAsync(alice, { nonce, era: 0 });
    const from = (await api.rpc.chain.getHeader()).number.toNumber() + 1;
    const hash = (await api.rpc.author.submitExtrinsic(signed)).toHex();
    const { block, failure } = await extrinsicOutcome(api, hash, from);
    if (failure !== null) throw new BaseError('devchain_failed', `the transfer ${hash} failed in block #${block}: ${failure}`);
    return hash;
  } finally {
    await api.disconnect().catch(() => undefined);
  }
}

/** `walletd dev fund` on the playground's chain: unreachable says "did not answer" (before polkadot.js would retry). */
export async function fundPolkadotPlayground(info: LocalChainInfo, request: FundRequest): Promise<string> {
  await rpc(info.rpcUrl, 'chain_getHeader');
  return fundLocalPolkadot(info.rpcUrl, request).catch((e: Error) => {
    throw new BaseError('devchain_failed', `the local ${info.chain} chain refused the funding: ${e.message}`, { cause: e });
  });
}
