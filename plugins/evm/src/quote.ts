import { BaseError, type BuildContext, type WithdrawalIntent } from '@walletd/plugin-kit';
import type { EvmReader } from './reader';
import { nodeRefusal } from './nodeRefusal';

/** The unsigned EVM transaction a withdrawal carries (quantities as decimal strings: JSON-safe). */
export interface EvmTxPayload {
  chainId: string;
  nonce: number;
  to: string;
  value: string;
  data: string;
  gasLimit: string;
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
}

/** A 32-byte ABI word (an address or quantity, hex without 0x). */
export const word = (hex: string) => hex.slice(2).toLowerCase().padStart(64, '0');

/** transfer(address,uint256) calldata. */
export function transferCalldata(to: string, amount: bigint): string {
  return `0xa9059cbb${word(to)}${amount.toString(16).padStart(64, '0')}`;
}

async function rpcOrRefusal<T>(reader: EvmReader, method: string, params: unknown[]): Promise<T> {
  try {
    return await reader.call<T>(method, params);
  } catch (e) {
    throw nodeRefusal(e);
  }
}

/** The next nonce of `from`: the node's pending count does not know transactions signed here but not yet sent. */
export function nextNonce(pending: number, from: string, context?: BuildContext): number {
  let next = pending;
  for (const w of context?.inFlight ?? []) {
    if (w.sourceAddresses[0]?.toLowerCase() !== from.toLowerCase()) continue;
    next = Math.max(next, (w.payload as EvmTxPayload).nonce + 1);
  }
  return next;
}

/**
 * The transaction `build` signs, with its fee cap (gas limit × max fee per gas), asking the node
 * but checking no balance: `build` checks the source can pay, and the gas station sizes a top-up
 * with it for a source that cannot (yet). EIP-1559 with twice the current base fee plus the tip as
 * the cap, so the transaction stays valid through a few full blocks; a token transfer's gas limit
 * is the node's estimate plus 20%.
 */
export async function quoteEvm(
  evm: EvmReader,
  intent: WithdrawalIntent,
  context?: BuildContext,
): Promise<{ payload: EvmTxPayload; fee: bigint; from: string }> {
  const [output] = intent.outputs;
  const from = intent.sources[0];
  if (!output) throw new BaseError('validation_failed', 'an EVM withdrawal pays exactly one recipient');
  if (!from) throw new BaseError('validation_failed', 'a source address is required');
  const token = intent.asset.contractAddress;
  const tx = token
    ? { from, to: token, value: '0x0', data: transferCalldata(output.to, output.amount) }
    : { from, to: output.to, value: `0x${output.amount.toString(16)}`, data: '0x' };
  const [chainId, nonce, block, tip, gas] = await Promise.all([
    evm.call<string>('eth_chainId', []),
    evm.call<string>('eth_getTransactionCount', [from, 'pending']),
    evm.call<{ baseFeePerGas?: string }>('eth_getBlockByNumber', ['latest', false]),
    evm.call<string>('eth_maxPriorityFeePerGas', []).catch(() => '0x3b9aca00'),
    rpcOrRefusal<string>(evm, 'eth_estimateGas', [tx]),
  ]);
  const baseFee = BigInt(block.baseFeePerGas ?? '0x0');
  const maxPriorityFeePerGas = BigInt(tip);
  const maxFeePerGas = baseFee * 2n + maxPriorityFeePerGas;
  // A little headroom over the estimate: token contracts can cost more on the next block.
  const gasLimit = token ? (BigInt(gas) * 12n) / 10n : BigInt(gas);
  const payload: EvmTxPayload = {
    chainId: BigInt(chainId).toString(),
    nonce: nextNonce(Number(BigInt(nonce)), from, context),
    to: tx.to,
    value: BigInt(tx.value).toString(),
    data: tx.data,
    gasLimit: gasLimit.toString(),
    maxFeePerGas: maxFeePerGas.toString(),
    maxPriorityFeePerGas: maxPriorityFeePerGas.toString(),
  };
  return { payload, fee: gasLimit * maxFeePerGas, from };
}
