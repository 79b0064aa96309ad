import {
  BaseError,
  type BuildContext,
  type ChainReader,
  type CheckedSignedWithdrawal,
  type SignedWithdrawal,
  type UnsignedWithdrawal,
  type WalletSecret,
  type VerifyContext,
  type WithdrawalIntent,
  type WithdrawalVerbs,
  type WithdrawalVerdict,
  refusingUnreadableSigned,
} from '@walletd/plugin-kit';
import { keyScript, scriptOf } from './addresses';
import { consolidate } from './consolidate';
import { bip32, bitcoin } from './libs';
import { nodeRefusal } from './nodeRefusal';
import { minedTransaction, paysIntent } from './paysIntent';
import { type Coin, estimatedFeeRate, inputVsize, outputVsize, spendableCoins } from './spendableCoins';
import { unsignedPsbt } from './unsignedPsbt';
import { utxoNetwork } from './networks';
import type { UtxoReader } from './utxoReader';

/** The unsigned UTXO transaction: a PSBT plus what a reviewer needs to read it. */
export interface UtxoTxPayload {
  psbt: string;
  inputs: Coin[];
  outputs: { address: string; script: string; value: string; change: boolean }[];
  feeRate: string;
  vsize: number;
}

const asUtxo = (reader: ChainReader) => reader as UtxoReader;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

export { outputVsize } from './spendableCoins';

/**
 * Coin selection over every source address (primary first), several recipients in one
 * transaction, change to the wallet's change address (`intent.change`; the primary address when
 * absent) unless it would be dust (then it goes to the fee).
 * The inputs of the wallet's in-flight withdrawals are skipped: two withdrawals never share a coin.
 */
export function createUtxoWithdrawals(): WithdrawalVerbs {
  return refusingUnreadableSigned('bitcoin-family transaction', {
    consolidate: (request, reader, context) => consolidate(request, asUtxo(reader), context),

    async build(intent: WithdrawalIntent, reader: ChainReader, context?: BuildContext): Promise<UnsignedWithdrawal> {
      const utxo = asUtxo(reader);
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
    },

    async sign(unsigned: UnsignedWithdrawal, secret: WalletSecret, derivationIndexes: number[]): Promise<SignedWithdrawal> {
      const net = utxoNetwork(unsigned.intent.chain, unsigned.intent.network);
      const p = unsigned.payload as UtxoTxPayload;
      const psbt = bitcoin.Psbt.fromBase64(p.psbt, { network: net.params });
      const seed = secret.seed();
      const root = bip32.fromSeed(Buffer.from(seed), net.params);
      seed.fill(0);
      const keyFor = new Map<string, ReturnType<typeof root.derivePath>>();
      unsigned.sourceAddresses.forEach((address, i) => {
        const index = derivationIndexes[i];
        if (index === undefined) throw new Error(`no derivation index for ${address}`);
        // The index is within the address's own branch: receive (0) or change (1); the key whose
        // script is the address's is the one.
        const script = hex(scriptOf(net, address));
        const key = ([0, 1] as const)
          .map((branch) => root.derivePath(`m/${net.purpose}'/${net.coinType}'/0'/${branch}/${index}`))
          .find((k) => hex(keyScript(net, k.publicKey)) === script);
        if (!key) throw new Error(`the wallet's key at index ${index} does not control ${address}`);
        keyFor.set(address, key);
      });
      p.inputs.forEach((c, i) => {
        const key = keyFor.get(c.address);
        if (!key) throw new Error(`no key for input ${c.txid}:${c.vout} (${c.address})`);
        psbt.signInput(i, key);
      });
      psbt.finalizeAllInputs();
      const tx = psbt.extractTransaction();
      return { raw: tx.toHex(), txHash: tx.getId() };
    },

    checkSigned(unsigned: UnsignedWithdrawal, raw: string): CheckedSignedWithdrawal {
      const p = unsigned.payload as UtxoTxPayload;
      let tx: ReturnType<typeof bitcoin.Transaction.fromHex>;
      try {
        tx = bitcoin.Transaction.fromHex(raw);
      } catch (e) {
        throw new BaseError(
          'unprocessable',
          `signedTransaction is not a serialized bitcoin-family transaction: ${(e as Error).message.slice(0, 160)}`,
        );
      }
      const refuse = (what: string) => {
        throw new BaseError('unprocessable', `the signed transaction does not pay the prepared withdrawal: ${what}`);
      };
      const ins = tx.ins.map((i) => `${Buffer.from(i.hash).reverse().toString('hex')}:${i.index}`).sort();
      const want = p.inputs.map((c) => `${c.txid}:${c.vout}`).sort();
      if (ins.join() !== want.join()) refuse('it spends other coins than the prepared ones');
      const outs = tx.outs.map((o) => `${hex(o.script)}:${o.value}`);
      if (outs.join() !== p.outputs.map((o) => `${o.script}:${o.value}`).join())
        refuse('its outputs (recipients, amounts or change) differ');
      return { signed: { raw: tx.toHex(), txHash: tx.getId() }, payload: p, fee: unsigned.fee };
    },

    async broadcast(signed: SignedWithdrawal, reader: ChainReader): Promise<void> {
      try {
        await asUtxo(reader).call<string>('sendrawtransaction', [signed.raw]);
      } catch (e) {
        const m = (e as Error).message.toLowerCase();
        // The same bytes again (a retry after a crash): the node already has them.
        if (m.includes('already in block chain') || m.includes('txn-already-known') || m.includes('txn-already-in-mempool')) return;
        throw nodeRefusal(e);
      }
    },

    /**
     * Its coins unspent (mempool included): `missing` (sent again). In the mempool: pending. In a
     * block and exactly the prepared transaction paying the intent (paysIntent.ts; otherwise
     * pending): confirmations from `gettxout` on one of its outputs (works without -txindex); the
     * fee is exact (inputs − outputs). Otherwise rejected: `reorg` if it had been mined, else
     * `mempool_dropped` (replaced or double-spent). The coins are read first: a broadcast landing
     * between the reads then shows in the mempool or a block read after it, never as coins spent
     * by "another" transaction (a payout in flight was rejected that way while its API call sent it).
     */
    async verify(unsigned: UnsignedWithdrawal, txHash: string, reader: ChainReader, context?: VerifyContext): Promise<WithdrawalVerdict> {
      const utxo = asUtxo(reader);
      const p = unsigned.payload as UtxoTxPayload;
      let unspent = true;
      for (const c of p.inputs) {
        if (!(await utxo.call<unknown>('gettxout', [c.txid, c.vout, true])).result) unspent = false;
      }
      if (unspent) return { status: 'missing', confirmations: 0 };
      const mempool = (await utxo.call<string[]>('getrawmempool', [])).result;
      if (mempool.includes(txHash)) return { status: 'pending', confirmations: 0 };
      for (let n = 0; n < p.outputs.length; n++) {
        const out = (await utxo.call<{ confirmations: number; bestblock: string } | null>('gettxout', [txHash, n, false])).result;
        if (out && out.confirmations > 0) {
          const height = BigInt((await utxo.call<number>('getblockcount', [])).result);
          const blockNumber = height - BigInt(out.confirmations) + 1n;
          if (!paysIntent(unsigned, await minedTransaction(utxo, txHash, blockNumber)))
            return { status: 'pending', confirmations: 0, blockNumber };
          return { status: 'confirmed', confirmations: out.confirmations, fee: unsigned.fee, blockNumber };
        }
      }
      // Its coins are spent and its own outputs are not in the UTXO set: by it (outputs already spent
      // too, e.g. the change re-used) or by another transaction. Ask for it directly when possible.
      try {
        const tx = (await utxo.call<{ confirmations?: number; hex?: string }>('getrawtransaction', [txHash, true])).result;
        if ((tx.confirmations ?? 0) > 0 && !paysIntent(unsigned, tx.hex ?? '')) return { status: 'pending', confirmations: 0 };
        if ((tx.confirmations ?? 0) > 0) {
          const height = BigInt((await utxo.call<number>('getblockcount', [])).result);
          return {
            status: 'confirmed',
            confirmations: tx.confirmations ?? 0,
            fee: unsigned.fee,
            blockNumber: height - BigInt(tx.confirmations ?? 0) + 1n,
          };
        }
      } catch {
        // Not known: another transaction spent its coins.
      }
      return { status: 'rejected', confirmations: 0, reason: context?.seenInBlock ? 'reorg' : 'mempool_dropped' };
    },
  });
}
