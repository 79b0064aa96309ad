import { BaseError, type BuildContext, type ChainReader, type UnsignedWithdrawal, type WithdrawalIntent } from '@walletd/plugin-kit';
import { scriptOf } from '../addresses';
import { utxoNetwork } from '../networks';
import type { UtxoTxPayload } from '../payload';
import type { UtxoReader } from '../reader';
import { type Coin, estimatedFeeRate, inputVsize, outputVsize, spendableCoins } from '../spendableCoins';
import { unsignedPsbt } from '../unsignedPsbt';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/**
 * Coin selection over every source address (primary first), several recipients in one
 * transaction, change to the wallet's change address (`intent.change`; the primary address when
 * absent) unless it would be dust (then it goes to the fee).
 * The inputs of the wallet's in-flight withdrawals are skipped: two withdrawals never share a coin.
 */
export async function buildUtxoWithdrawal(
  intent: WithdrawalIntent,
  reader: ChainReader,
  context?: BuildContext,
): Promise<UnsignedWithdrawal> {
  const utxo = reader as UtxoReader;
  const net = utxoNetwork(intent.chain, intent.network);
  const primary = intent.sources[0];
  if (!primary) throw new BaseError('validation_failed', 'a source address is required');
  const outputs = intent.outputs.map((o) => {
    if (o.amount < net.dustLimit)
      throw new BaseError('invalid_amount', `${o.amount} base units to ${o.to} is below the dust limit of ${net.dustLimit}`);
    return { address: o.to, script: hex(scriptOf(net, o.to)), value: o.amount.toString(), change: false };
  });
  const rate = await estimatedFeeRate(utxo, net);
  const coins = await spendableCoins(utxo, net, intent.sources, context);
  const want = intent.outputs.reduce((s, o) => s + o.amount, 0n);
  const changeAddress = intent.change ?? primary;
  const changeScript = hex(scriptOf(net, changeAddress));
  const baseVsize = 11 + outputs.reduce((n, o) => n + outputVsize(o.script), 0);
  const chosen: Coin[] = [];
  let have = 0n;
  let vsize = baseVsize;
  for (const c of coins) {
    chosen.push(c);
    have += BigInt(c.value);
    vsize += inputVsize(c.script);
    if (have >= want + BigInt(vsize) * rate) break;
  }
  let fee = BigInt(vsize) * rate;
  if (have < want + fee) {
    throw new BaseError(
      'insufficient_funds',
      `the wallet's confirmed, unreserved coins hold ${have} base units; ${want} plus a fee of ${fee} is needed`,
    );
  }
  let change = have - want - fee;
  const changeFee = BigInt(outputVsize(changeScript)) * rate;
  if (change - changeFee >= net.dustLimit) {
    change -= changeFee;
    fee += changeFee;
    vsize += outputVsize(changeScript);
    outputs.push({ address: changeAddress, script: changeScript, value: change.toString(), change: true });
  } else {
    fee += change; // dust change is given to the miners
  }
  const psbt = await unsignedPsbt(utxo, net, chosen, outputs);
  const sourceAddresses = [...new Set([primary, ...chosen.map((c) => c.address)])].filter((a) => chosen.some((c) => c.address === a));
  const payload: UtxoTxPayload = { psbt, inputs: chosen, outputs, feeRate: rate.toString(), vsize };
  return { intent, payload, fee, sourceAddresses };
}
