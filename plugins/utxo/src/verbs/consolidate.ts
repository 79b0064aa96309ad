import { BaseError, type BuildContext, type ConsolidationRequest, type UnsignedWithdrawal } from '@walletd/plugin-kit';
import { scriptOf } from '../addresses';
import { type UtxoNetwork, utxoNetwork } from '../networks';
import { type Coin, estimatedFeeRate, inputVsize, outputVsize, spendableCoins } from '../spendableCoins';
import { unsignedPsbt } from '../unsignedPsbt';
import type { UtxoReader } from '../reader';
import type { UtxoTxPayload } from '../payload';

/**
 * Bitcoin Core's and Dogecoin Core's largest standard transaction: 400,000 weight units, 100,000
 * virtual bytes (MAX_STANDARD_TX_WEIGHT). About 1,470 P2WPKH or 675 P2PKH inputs fit with one output.
 */
export const MAX_STANDARD_VSIZE = 100_000;

/**
 * The highest fee rate a consolidation takes from the node's estimate, as a multiple of the
 * network's floor (bitcoin 500 sat/vB, dogecoin 500,000 koinu/vB): a consolidation can wait, a fee
 * spike should not empty the deposits into the miners' hands. A rule's own `feeRate` above it is refused.
 */
export const MAX_FEE_RATE_FLOORS = 500n;

export const maxConsolidationFeeRate = (net: Pick<UtxoNetwork, 'minFeeRate'>): bigint => net.minFeeRate * MAX_FEE_RATE_FLOORS;

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/**
 * The coins one transaction takes, in order, within the standard size: each source address whose
 * coins worth spending (value above what their input costs at `rate`) reach `threshold`, whole;
 * the first address alone is cut where the size runs out (the rest of it goes next time).
 */
export function consolidationCoins(coins: Coin[], sources: string[], threshold: bigint, rate: bigint, outputScript: string): Coin[] {
  const worth = coins.filter((c) => BigInt(c.value) > BigInt(inputVsize(c.script)) * rate);
  let vsize = 11 + outputVsize(outputScript);
  const taken: Coin[] = [];
  for (const address of sources) {
    const own = worth.filter((c) => c.address === address);
    if (own.reduce((s, c) => s + BigInt(c.value), 0n) < threshold) continue;
    for (const c of own) {
      if (vsize + inputVsize(c.script) > MAX_STANDARD_VSIZE) return taken;
      vsize += inputVsize(c.script);
      taken.push(c);
    }
  }
  return taken;
}

/**
 * A sweep rule's consolidation (`WithdrawalVerbs.consolidate`): the qualifying coins of every
 * source in one transaction to `to`, which receives their sum less the fee, exactly (no change).
 */
export async function consolidate(
  request: ConsolidationRequest,
  reader: UtxoReader,
  context?: BuildContext,
): Promise<UnsignedWithdrawal | null> {
  const net = utxoNetwork(request.chain, request.network);
  const cap = maxConsolidationFeeRate(net);
  if (request.feeRate !== undefined && (request.feeRate < net.minFeeRate || request.feeRate > cap))
    throw new BaseError(
      'validation_failed',
      `feeRate ${request.feeRate} is outside ${net.minFeeRate} to ${cap} base units per vbyte on ${request.chain} ${request.network}`,
    );
  const estimate = request.feeRate ?? (await estimatedFeeRate(reader, net));
  // biome-ignore lint/complexity/useMathMinMax: bigints (Math.min takes numbers only)
  const rate = estimate > cap ? cap : estimate;
  const script = hex(scriptOf(net, request.to));
  const coins = await spendableCoins(reader, net, request.sources, context);
  const chosen = consolidationCoins(coins, request.sources, request.threshold, rate, script);
  if (chosen.length === 0) return null;
  const vsize = chosen.reduce((n, c) => n + inputVsize(c.script), 11 + outputVsize(script));
  const fee = BigInt(vsize) * rate;
  const amount = chosen.reduce((s, c) => s + BigInt(c.value), 0n) - fee;
  if (amount < net.dustLimit) return null;
  const outputs = [{ address: request.to, script, value: amount.toString(), change: false }];
  const payload: UtxoTxPayload = {
    psbt: await unsignedPsbt(reader, net, chosen, outputs),
    inputs: chosen,
    outputs,
    feeRate: rate.toString(),
    vsize,
  };
  const sourceAddresses = request.sources.filter((a) => chosen.some((c) => c.address === a));
  return {
    intent: {
      chain: request.chain,
      network: request.network,
      asset: request.asset,
      outputs: [{ to: request.to, amount }],
      sources: sourceAddresses,
    },
    payload,
    fee,
    sourceAddresses,
  };
}
