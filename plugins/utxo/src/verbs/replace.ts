import { BaseError, type ChainReader, type ReplaceRequest, type UnsignedWithdrawal } from '@walletd/plugin-kit';
import { scriptOf } from '../addresses';
import { coinsToUnits } from '../coins';
import { type UtxoNetwork, utxoNetwork } from '../networks';
import type { UtxoTxPayload } from '../payload';
import type { UtxoReader } from '../reader';
import { estimatedFeeRate, inputVsize, outputVsize } from '../spendableCoins';
import { unsignedPsbt } from '../unsignedPsbt';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const max = (a: bigint, b: bigint) => (a > b ? a : b);
const sum = (xs: { value: string }[]) => xs.reduce((s, x) => s + BigInt(x.value), 0n);

/** The node's incremental relay fee (BIP-125 rule 4), per vbyte; the network's floor where the node does not say. */
async function incrementalFeeRate(reader: UtxoReader, net: UtxoNetwork): Promise<bigint> {
  try {
    const { text } = await reader.call<unknown>('getnetworkinfo', []);
    const m = /"incrementalfee"\s*:\s*([0-9.eE+-]+)/.exec(text);
    if (m?.[1]) return max((coinsToUnits(m[1]) + 999n) / 1000n, net.minFeeRate);
  } catch {
    // A provider without getnetworkinfo: the floor (1 sat/vB on bitcoin, Core's default).
  }
  return net.minFeeRate;
}

/**
 * The BIP-125 replacement of `current` (issue 46 §3): the same inputs, so only one of them can be
 * mined. A speed-up pays the same recipients the same amounts and takes the higher fee from the
 * change output (change left below dust goes to the fee, as in build); a cancel pays every input,
 * less the fee, to the wallet's change address. The fee is at least the replaced one plus the
 * node's incremental relay fee over the replacement's size (rules 3 and 4), and at least the
 * node's estimate now (a speed-up that pays less than today's rate would not help); the caller's
 * `maxFeeRate` caps it, and one below the rules is refused (the node would refuse the replacement).
 * Sizes are the estimates build uses (rounded up), so the fee never falls short of the rule.
 */
export async function replaceUtxoWithdrawal(
  current: UnsignedWithdrawal,
  request: ReplaceRequest,
  reader: ChainReader,
): Promise<UnsignedWithdrawal> {
  const utxo = reader as UtxoReader;
  const net = utxoNetwork(current.intent.chain, current.intent.network);
  const p = current.payload as UtxoTxPayload;
  const oldFee = sum(p.inputs) - sum(p.outputs);
  const cancel = request.kind === 'cancel';
  const changeOutput = p.outputs.find((o) => o.change);
  const back = current.intent.change ?? changeOutput?.address ?? current.sourceAddresses[0];
  if (!back) throw new BaseError('internal', 'a replacement needs the wallet change address');
  const kept = cancel
    ? [{ address: back, script: hex(scriptOf(net, back)), value: '0', change: true }]
    : p.outputs.filter((o) => !o.change);
  if (!cancel && !changeOutput)
    throw new BaseError('unprocessable', 'this transaction has no change output to pay a higher fee from; cancel it on chain instead');
  const vsizeWith = (outs: { script: string }[]) =>
    11 + p.inputs.reduce((n, c) => n + inputVsize(c.script), 0) + outs.reduce((n, o) => n + outputVsize(o.script), 0);
  const vsize = vsizeWith(cancel ? kept : [...kept, changeOutput as { script: string }]);
  const [incremental, estimate] = await Promise.all([incrementalFeeRate(utxo, net), estimatedFeeRate(utxo, net)]);
  const least = oldFee + incremental * BigInt(vsize);
  let fee = max(least, estimate * BigInt(vsize));
  // An auto-bump's factor: at least that multiple of the replaced fee rate, over the replacement's size.
  if (request.factorPermille !== undefined)
    fee = max(fee, (oldFee * request.factorPermille * BigInt(vsize) + 1000n * BigInt(p.vsize) - 1n) / (1000n * BigInt(p.vsize)));
  if (request.maxFeeRate !== undefined) {
    const cap = request.maxFeeRate * BigInt(vsize);
    if (cap < least)
      throw new BaseError(
        'unprocessable',
        `maxFeeRate ${request.maxFeeRate} is below what replaces the transaction (${(least + BigInt(vsize) - 1n) / BigInt(vsize)} base units per vbyte: its fee ${oldFee} plus the incremental relay fee)`,
      );
    if (cap < fee) fee = cap;
  }
  const outputs = kept.map((o) => ({ ...o }));
  let finalVsize = vsize;
  if (cancel) {
    const value = sum(p.inputs) - fee;
    if (value < net.dustLimit)
      throw new BaseError(
        'unprocessable',
        `the inputs (${sum(p.inputs)} base units) cannot pay the cancel's fee of ${fee} and a change output`,
      );
    (outputs[0] as { value: string }).value = value.toString();
  } else {
    const change = BigInt((changeOutput as { value: string }).value) - (fee - oldFee);
    if (change < 0n)
      throw new BaseError(
        'unprocessable',
        `the change (${(changeOutput as { value: string }).value} base units) cannot pay the replacement's extra fee of ${fee - oldFee}; cancel it on chain instead`,
      );
    if (change >= net.dustLimit) outputs.push({ ...(changeOutput as UtxoTxPayload['outputs'][number]), value: change.toString() });
    else {
      fee += change; // dust change is given to the miners, as in build
      finalVsize = vsizeWith(outputs);
    }
  }
  const psbt = await unsignedPsbt(utxo, net, p.inputs, outputs);
  const payload: UtxoTxPayload = {
    psbt,
    inputs: p.inputs,
    outputs,
    feeRate: ((fee + BigInt(finalVsize) - 1n) / BigInt(finalVsize)).toString(),
    vsize: finalVsize,
  };
  const intent = cancel
    ? { ...current.intent, asset: { key: '', symbol: '', decimals: 0, contractAddress: null }, outputs: [{ to: back, amount: 0n }] }
    : current.intent;
  return { ...current, intent, payload, fee };
}
