import { toBaseUnits } from '@walletd/core';
import type { LocalChainInfo } from '@walletd/devchains';
import { addressOfScript, utxoMatchKey, utxoNetwork } from '@walletd/plugin-utxo';
import { loadPlugins } from '../plugins';
import { describeFetchError, rpc } from './devnetRpc';

/** The method each in-process adapter serves for `walletd dev fund` (never part of the chain's own API). */
const FUND_METHOD = 'walletd_fund';

/** Base units of `amount` in the local chain's native coin or in one of its tokens (by symbol). */
export function localAmount(info: LocalChainInfo, amount: string, token?: string): { units: bigint; asset: string } {
  if (token === undefined) {
    // The native coin as the shipped plugin that serves the local chain declares it.
    const native = loadPlugins().chainTable().network(info.chain, info.network)?.native;
    if (!native) throw new Error(`${info.chain}/${info.network} is not a known network`);
    return { units: toBaseUnits(amount, native.decimals, { allowZero: false }), asset: native.symbol };
  }
  const t = info.tokens.find((x) => x.symbol.toUpperCase() === token.toUpperCase());
  if (!t) {
    throw new Error(
      `the local ${info.chain} chain has no token ${token}; it has: ${info.tokens.map((x) => x.symbol).join(', ') || 'none'}`,
    );
  }
  return { units: toBaseUnits(amount, t.decimals, { allowZero: false }), asset: t.symbol };
}

/** Funds `address` on a running local chain through its adapter; returns the transaction's id on the chain. */
export async function fundLocal(info: LocalChainInfo, address: string, units: bigint, token?: string): Promise<string> {
  // Chopsticks runs in its own process: the transfer is signed here and sent to it.
  if (info.chain === 'polkadot') {
    const { fundLocalPolkadot } = await import('@walletd/devchains');
    await rpc(info.rpcUrl, 'chain_getHeader'); // unreachable: "did not answer", before polkadot.js retries
    return fundLocalPolkadot(info.rpcUrl, { address, amount: units, token }).catch((e: Error) => {
      throw new Error(`the local polkadot chain refused the funding: ${e.message}`, { cause: e });
    });
  }
  if (info.chain === 'bitcoin') return fundRegtest(info, address, units, token);
  let res: Response;
  try {
    // TON's adapter speaks toncenter's REST (a path per method), the others JSON-RPC.
    const rest = info.chain === 'ton';
    const params = [address, units.toString(), token ?? null];
    res = await fetch(rest ? `${info.rpcUrl}/${FUND_METHOD}` : info.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(rest ? { params } : { jsonrpc: '2.0', id: 1, method: FUND_METHOD, params }),
    });
  } catch (e) {
    throw new Error(describeFetchError(info.rpcUrl, e), { cause: e });
  }
  const body = (await res.json()) as { result?: string; error?: string | { message: string } };
  if (body.error) {
    const why = typeof body.error === 'string' ? body.error : body.error.message;
    throw new Error(`the local ${info.chain} chain refused the funding: ${why}`);
  }
  return body.result as string;
}

/**
 * The regtest node is litecoind: it prints the same output script in its own encoding (rltc1…
 * for segwit, 0x3a for P2SH), so the address is re-encoded for it before its wallet pays.
 */
async function fundRegtest(info: LocalChainInfo, address: string, units: bigint, token?: string): Promise<string> {
  const { fundLocalBitcoin } = await import('@walletd/devchains');
  const net = utxoNetwork(info.chain, info.network);
  let script: Buffer;
  try {
    script = Buffer.from(utxoMatchKey(info.chain, info.network, address), 'hex');
  } catch (e) {
    throw new Error(`${address} is not a ${info.chain}/${info.network} address`, { cause: e });
  }
  const nodeAddress = addressOfScript({ ...net, params: { ...net.params, bech32: 'rltc', scriptHash: 0x3a } }, script);
  if (!nodeAddress) throw new Error(`${address}: the regtest node cannot pay this kind of output`);
  return fundLocalBitcoin(info.rpcUrl, { address: nodeAddress, amount: units, token }).catch((e: Error) => {
    const unreachable = e.message === 'fetch failed';
    const url = info.rpcUrl.replace(/\/\/[^@]*@/, '//');
    throw new Error(unreachable ? describeFetchError(url, e) : `the local bitcoin chain refused the funding: ${e.message}`, { cause: e });
  });
}
