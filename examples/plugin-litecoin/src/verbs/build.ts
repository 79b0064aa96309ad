import { BaseError, type BuildContext, type UnsignedWithdrawal, type WithdrawalIntent, toBaseUnits } from '@walletd/plugin-kit';
import { matchKeyOf } from '../addresses';
import { bitcoin } from '../libs';
import type { LitecoinReader, Unspent } from '../reader';
import { networkOf } from '../networks';
import { type LitecoinPayload, SEQUENCE, payloadOf } from '../payload';

/** The smallest output this plugin makes; less is refused (or, as change, given to the fee): nodes do not relay dust. */
export const DUST_LIMIT = 10_000n;

// Virtual sizes (BIP-141) of a P2WPKH input and of outputs, rounded up: the fee bound never falls short.
const INPUT_VSIZE = 68;
const OVERHEAD_VSIZE = 11;
const outputVsize = (script: string) => 9 + script.length / 2;

/** Litoshis per vbyte: the node's 6-block estimate, never below its relay minimum. */
async function feeRate(reader: LitecoinReader): Promise<bigint> {
  const perVbyte = (ltcPerKvB: string | number) => (toBaseUnits(String(ltcPerKvB), 8) + 999n) / 1000n;
  const relay = perVbyte((await reader.call<{ relayfee: string | number }>('getnetworkinfo', [])).relayfee);
  const estimate = await reader.call<{ feerate?: string | number }>('estimatesmartfee', [6]);
  const rate = estimate.feerate === undefined ? relay : perVbyte(estimate.feerate);
  return rate > relay ? rate : relay > 0n ? relay : 1n;
}

/**
 * Coin selection over the wallet's sources (primary address first, then the largest coins), the
 * recipients in order, change to `intent.change` (the primary address when absent) unless it
 * would be dust. Coins spent by the wallet's in-flight withdrawals, or by any transaction in the
 * node's pool, are skipped. Only confirmed coins are spent (`scantxoutset` reads the UTXO set of
 * the chain's tip).
 */
export async function build(intent: WithdrawalIntent, reader: LitecoinReader, context?: BuildContext): Promise<UnsignedWithdrawal> {
  const { chain, network } = intent;
  const primary = intent.sources[0];
  if (!primary) throw new BaseError('validation_failed', 'a source address is required');
  if (intent.asset.contractAddress !== null) throw new BaseError('unknown_asset', 'litecoin has no tokens');
  const outputs = intent.outputs.map((o) => {
    if (o.amount < DUST_LIMIT)
      throw new BaseError('invalid_amount', `${o.amount} litoshis to ${o.to} is below the dust limit of ${DUST_LIMIT}`);
    return { script: matchKeyOf(chain, network, o.to), value: o.amount.toString() };
  });
  const sourceOf = new Map(intent.sources.map((a) => [matchKeyOf(chain, network, a), a]));
  const busy = new Set((context?.inFlight ?? []).flatMap((u) => payloadOf(u).inputs.map((i) => `${i.txid}:${i.vout}`)));
  const primaryScript = matchKeyOf(chain, network, primary);
  const coins = (await reader.unspent([...sourceOf.keys()]))
    .filter((c) => !busy.has(`${c.txid}:${c.vout}`))
    .sort(
      (a, b) =>
        Number(b.script === primaryScript) - Number(a.script === primaryScript) || (b.value > a.value ? 1 : b.value < a.value ? -1 : 0),
    );
  const rate = await feeRate(reader);
  const want = intent.outputs.reduce((s, o) => s + o.amount, 0n);
  let vsize = OVERHEAD_VSIZE + outputs.reduce((n, o) => n + outputVsize(o.script), 0);
  const chosen: Unspent[] = [];
  let have = 0n;
  for (const c of coins) {
    if (have >= want + BigInt(vsize) * rate) break;
    // The UTXO set is the chain tip's: a coin a transaction in the pool already spends (one broadcast
    // and not mined yet) would make a conflicting transaction the node refuses.
    if ((await reader.call<unknown>('gettxout', [c.txid, c.vout, true])) === null) continue;
    chosen.push(c);
    have += c.value;
    vsize += INPUT_VSIZE;
  }
  let fee = BigInt(vsize) * rate;
  if (have < want + fee)
    throw new BaseError(
      'insufficient_funds',
      `the wallet's confirmed, unreserved coins hold ${have} litoshis; ${want} plus a fee of ${fee} is needed`,
    );
  const changeScript = matchKeyOf(chain, network, intent.change ?? primary);
  const changeFee = BigInt(outputVsize(changeScript)) * rate;
  const change = have - want - fee - changeFee;
  if (change >= DUST_LIMIT) {
    outputs.push({ script: changeScript, value: change.toString() });
    fee += changeFee;
    vsize += outputVsize(changeScript);
  } else {
    fee = have - want; // dust change goes to the miners
  }
  const psbt = new bitcoin.Psbt({ network: networkOf(chain, network).params });
  for (const c of chosen)
    psbt.addInput({
      hash: c.txid,
      index: c.vout,
      sequence: SEQUENCE,
      witnessUtxo: { script: Buffer.from(c.script, 'hex'), value: c.value },
    });
  for (const o of outputs) psbt.addOutput({ script: Buffer.from(o.script, 'hex'), value: BigInt(o.value) });
  const payload: LitecoinPayload = {
    psbt: psbt.toBase64(),
    inputs: chosen.map((c) => ({
      txid: c.txid,
      vout: c.vout,
      script: c.script,
      value: c.value.toString(),
      address: sourceOf.get(c.script) as string,
    })),
    outputs,
    feeRate: rate.toString(),
    vsize,
  };
  const sourceAddresses = intent.sources.filter((a) => chosen.some((c) => sourceOf.get(c.script) === a));
  return { intent, payload, fee, sourceAddresses };
}
