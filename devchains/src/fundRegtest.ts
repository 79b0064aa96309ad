import { addressOfScript, utxoMatchKey, utxoNetwork } from '@walletd/plugin-utxo';
import { describeFetchError } from './devnetRpc';
import { asLitecoind } from './litecoind';
import type { FundRequest, LocalChainInfo } from './localChain';
import { fundLocalBitcoin } from './localBitcoin';
import { BaseError } from '@walletd/core';

/**
 * `walletd dev fund` on a regtest chain run by litecoind: its wallet pays and mines the block.
 * litecoind prints the same output script in its own encoding (rltc1… for segwit, 0x3a for
 * P2SH), so the address walletd issued is re-encoded for it first.
 */
export async function fundRegtest(info: LocalChainInfo, request: FundRequest): Promise<string> {
  const net = utxoNetwork(info.chain, info.network);
  let script: Buffer;
  try {
    script = Buffer.from(utxoMatchKey(info.chain, info.network, request.address), 'hex');
  } catch (e) {
    throw new BaseError('input_invalid', `${request.address} is not a ${info.chain}/${info.network} address`, { cause: e });
  }
  const nodeAddress = addressOfScript(asLitecoind(net), script);
  if (!nodeAddress) throw new BaseError('devchain_failed', `${request.address}: the regtest node cannot pay this kind of output`);
  return fundLocalBitcoin(info.rpcUrl, { ...request, address: nodeAddress }).catch((e: Error) => {
    const unreachable = e.message === 'fetch failed';
    const url = info.rpcUrl.replace(/\/\/[^@]*@/, '//');
    throw new BaseError(
      'devchain_failed',
      unreachable ? describeFetchError(url, e) : `the local ${info.chain} chain refused the funding: ${e.message}`,
      {
        cause: e,
      },
    );
  });
}
