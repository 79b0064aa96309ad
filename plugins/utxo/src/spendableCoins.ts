import type { BuildContext } from '@walletd/plugin-kit';
import { scriptOf } from './addresses';
import { coinsToUnits } from './coins';
import type { UtxoNetwork } from './networks';
import type { UtxoReader } from './reader';
import type { UtxoTxPayload } from './payload';

/** One coin a withdrawal spends. */
export interface Coin {
  txid: string;
  vout: number;
  value: string;
  address: string;
  script: string;
  /** The block height of the coin (to fetch its transaction from a node without -txindex). */
  height: number;
  /** Legacy inputs sign over the whole previous transaction (PSBT nonWitnessUtxo). */
  prevTx?: string;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** vbytes: P2WPKH input 68, P2PKH input 148 (both rounded up, so an estimate never under-pays). */
export const inputVsize = (script: string) => (script.startsWith('0014') ? 68 : 148);

/**
 * An output is its value (8), the script's length (1 byte below 253) and the script: P2WPKH 31,
 * P2SH 32, P2PKH 34, P2WSH and taproot 43 (counting every non-P2WPKH output as 34 under-paid those).
 */
export const outputVsize = (script: string) => 8 + 1 + script.length / 2;

/** The node's fee estimate for about an hour (6 blocks), never below the network's floor. */
export async function estimatedFeeRate(reader: UtxoReader, net: UtxoNetwork): Promise<bigint> {
  try {
    const { text } = await reader.call<unknown>('estimatesmartfee', [6]);
    const m = /"feerate"\s*:\s*([0-9.eE+-]+)/.exec(text);
    if (m?.[1]) {
      const perKvB = coinsToUnits(m[1]);
      const perVb = (perKvB + 999n) / 1000n;
      return perVb > net.minFeeRate ? perVb : net.minFeeRate;
    }
  } catch {
    // No estimate (a fresh regtest chain, a provider without it): the floor.
  }
  return net.minFeeRate;
}

/**
 * Confirmed coins of the source addresses (the UTXO set), minus those in-flight withdrawals spend;
 * in the sources' order (primary first), larger coins first within an address.
 */
export async function spendableCoins(reader: UtxoReader, net: UtxoNetwork, sources: string[], context?: BuildContext): Promise<Coin[]> {
  const reserved = new Set<string>();
  for (const w of context?.inFlight ?? []) for (const c of (w.payload as UtxoTxPayload).inputs ?? []) reserved.add(`${c.txid}:${c.vout}`);
  const byScript = new Map(sources.map((a) => [hex(scriptOf(net, a)), a]));
  const { text } = await reader.call<unknown>('scantxoutset', ['start', [...byScript.keys()].map((s) => `raw(${s})`)]);
  const body = JSON.parse(text.replace(/"amount"\s*:\s*([0-9.eE+-]+)/g, '"amount":"$1"')) as {
    result: { unspents: { txid: string; vout: number; scriptPubKey: string; amount: string; height: number }[] };
  };
  const coins: Coin[] = [];
  for (const u of body.result.unspents) {
    if (reserved.has(`${u.txid}:${u.vout}`)) continue;
    const address = byScript.get(u.scriptPubKey);
    if (!address) continue;
    coins.push({ txid: u.txid, vout: u.vout, value: coinsToUnits(u.amount).toString(), address, script: u.scriptPubKey, height: u.height });
  }
  const rank = new Map(sources.map((a, i) => [a, i]));
  return coins.sort((a, b) => (rank.get(a.address) ?? 0) - (rank.get(b.address) ?? 0) || Number(BigInt(b.value) - BigInt(a.value)));
}
