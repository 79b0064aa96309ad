import { BaseError, type ChainReader, type ReplaceRequest, type UnsignedWithdrawal } from '@walletd/plugin-kit';
import type { EvmTxPayload } from '../quote';
import type { EvmReader } from '../reader';

/** The node's replacement rule (geth, anvil): at least +10 % on both the max fee and the tip. */
const bumped = (fee: bigint) => fee + (fee + 9n) / 10n;

/**
 * The same nonce with fees that replace `current`: each of maxFeePerGas and maxPriorityFeePerGas
 * at least +10 % (rounded up), or what the node suggests now when that is higher (twice the base
 * fee plus the tip, as `build`), or the auto-bump's factor times the current. A caller's cap below the replacement rule is refused: the node
 * would refuse the transaction. A cancel sends 0 from the source to itself (21 000 gas).
 */
export async function replaceEvmWithdrawal(
  current: UnsignedWithdrawal,
  request: ReplaceRequest,
  reader: ChainReader,
): Promise<UnsignedWithdrawal> {
  const evm = reader as EvmReader;
  const p = current.payload as EvmTxPayload;
  const source = current.sourceAddresses[0];
  if (!source) throw new BaseError('internal', 'a replacement needs the source address');
  const [block, tip] = await Promise.all([
    evm.call<{ baseFeePerGas?: string }>('eth_getBlockByNumber', ['latest', false]),
    evm.call<string>('eth_maxPriorityFeePerGas', []).catch(() => '0x3b9aca00'),
  ]);
  // An auto-bump's factor raises both fees further (rounded up); the cap below still bounds them.
  const times = (fee: bigint) => (request.factorPermille !== undefined ? (fee * request.factorPermille + 999n) / 1000n : 0n);
  const greatest = (xs: bigint[]) => {
    let best = 0n;
    for (const x of xs) if (x > best) best = x;
    return best;
  };
  const ruleTip = greatest([bumped(BigInt(p.maxPriorityFeePerGas)), BigInt(tip)]);
  let maxPriorityFeePerGas = greatest([ruleTip, times(BigInt(p.maxPriorityFeePerGas))]);
  const suggested = BigInt(block.baseFeePerGas ?? '0x0') * 2n + maxPriorityFeePerGas;
  let maxFeePerGas = greatest([bumped(BigInt(p.maxFeePerGas)), suggested, times(BigInt(p.maxFeePerGas))]);
  if (request.maxFeePerGas !== undefined) {
    if (request.maxFeePerGas < bumped(BigInt(p.maxFeePerGas)) || request.maxFeePerGas < ruleTip)
      throw new BaseError(
        'unprocessable',
        `maxFeePerGas ${request.maxFeePerGas} is below what replaces the transaction (${bumped(BigInt(p.maxFeePerGas))}: +10 %)`,
      );
    if (request.maxFeePerGas < maxFeePerGas) maxFeePerGas = request.maxFeePerGas;
    // The tip never exceeds the max fee: a capped bump keeps at least the tip the rule needs.
    if (maxPriorityFeePerGas > maxFeePerGas) maxPriorityFeePerGas = maxFeePerGas;
  }
  const cancel = request.kind === 'cancel';
  const payload: EvmTxPayload = {
    ...p,
    ...(cancel ? { to: source, value: '0', data: '0x', gasLimit: '21000' } : {}),
    maxFeePerGas: maxFeePerGas.toString(),
    maxPriorityFeePerGas: maxPriorityFeePerGas.toString(),
  };
  const intent = cancel
    ? {
        ...current.intent,
        asset: { key: '', symbol: '', decimals: 0, contractAddress: null },
        outputs: [{ to: source, amount: 0n }],
      }
    : current.intent;
  return { ...current, intent, payload, fee: BigInt(payload.gasLimit) * maxFeePerGas };
}
