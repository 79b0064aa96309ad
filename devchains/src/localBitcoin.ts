import { litecoindAvailable, startLitecoind } from './litecoind';
import type { FundRequest, LocalChain } from './localChain';
import { BaseError } from '@walletd/core';

export const litecoindMissing = (chain: string) =>
  `devnet.chains has ${chain}, which runs a regtest node: litecoind (Bitcoin Core’s RPC and transaction formats; Debian has no bitcoind package). Install it: apt-get install litecoind`;

/**
 * A bitcoin-family chain on a litecoind regtest node for `walletd serve` (`<chain>/regtest`,
 * bitcoin's or dogecoin's: each on a node of its own, as one node's chain has one address
 * format): the node's own process with its datadir at `datadir` (kept across restarts: the
 * chain, the funding wallet and its coins persist), RPC on loopback `port`. Regtest mines nothing
 * by itself: a block is mined whenever the mempool holds a transaction (a withdrawal walletd
 * sent), checked every second.
 */
export async function startLocalRegtest(options: { chain: string; port: number; datadir: string }): Promise<LocalChain> {
  if (!litecoindAvailable()) throw new BaseError('setup_failed', litecoindMissing(options.chain));
  const node = await startLitecoind({ datadir: options.datadir, rpcPort: options.port });
  try {
    let mining = false;
    const ticker = setInterval(() => {
      if (mining) return;
      mining = true;
      node
        .rpc<{ size: number }>('getmempoolinfo')
        .then((m) => (m.size > 0 ? node.mine(1) : undefined))
        .catch(() => undefined)
        .finally(() => {
          mining = false;
        });
    }, 1000);
    ticker.unref();
    const height = await node.rpc<number>('getblockcount');
    return {
      fresh: node.fresh,
      info: {
        chain: options.chain,
        network: 'regtest',
        rpcUrl: node.url,
        tokens: [],
        genesis: await node.rpc<string>('getblockhash', [0]),
        pid: process.pid,
        settings: { pollIntervalMs: 500, startBlock: height + 1 },
      },
      stop: async () => {
        clearInterval(ticker);
        await node.stop();
      },
    };
  } catch (err) {
    await node.stop();
    throw err;
  }
}

/** JSON-RPC to a node whose URL carries its credentials (fetch refuses such a URL as is). */
export async function regtestRpc<T>(rpcUrl: string, method: string, params: unknown[] = []): Promise<T> {
  const url = new URL(rpcUrl);
  const auth = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
  url.username = '';
  url.password = '';
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: auth },
    body: JSON.stringify({ jsonrpc: '1.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } | null };
  if (body.error) throw new BaseError('devchain_failed', `${method}: ${body.error.message}`);
  return body.result as T;
}

/**
 * `walletd dev fund` on a local regtest chain: the node's wallet pays `request.address` (in the
 * node's own encoding: litecoind prints regtest segwit addresses as rltc1…), then mines the block
 * that confirms it. `amount` is in base units (1e-8 of a coin). Returns the transaction's id.
 */
export async function fundLocalBitcoin(rpcUrl: string, request: FundRequest): Promise<string> {
  if (request.token !== undefined) throw new BaseError('input_invalid', `the local regtest chain has no tokens (not ${request.token})`);
  const coins = `${request.amount / 100_000_000n}.${(request.amount % 100_000_000n).toString().padStart(8, '0')}`;
  const txid = await regtestRpc<string>(rpcUrl, 'sendtoaddress', [request.address, coins]);
  await regtestRpc(rpcUrl, 'generatetoaddress', [1, await regtestRpc<string>(rpcUrl, 'getnewaddress')]);
  return txid;
}
