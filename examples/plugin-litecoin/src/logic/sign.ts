import { BaseError, type SignedWithdrawal, type UnsignedWithdrawal, type WalletSecret } from '@walletd/plugin-kit';
import { matchKeyOf } from '../encoding/address';
import { u32le, u64le, varBytes } from '../encoding/bytes';
import { hash160, hash256 } from '../encoding/hash';
import { publicKeyOf, signSighashPreimage } from '../encoding/secp256k1';
import { serializeTransaction, txidOf } from '../encoding/transaction';
import { type Branch, deriveAt, privateKeyAt } from './derive';
import { payloadOf, transactionOf } from './payload';

const SIGHASH_ALL = 1;

/**
 * Signs every input (each a P2WPKH coin of the wallet) with BIP-143's segwit sighash. Each source's
 * index is within its own branch (receive or change): the key whose script is the source's is the
 * one. Private keys are zeroed once used.
 */
export async function sign(unsigned: UnsignedWithdrawal, secret: WalletSecret, derivationIndexes: number[]): Promise<SignedWithdrawal> {
  const { chain, network } = unsigned.intent;
  const p = payloadOf(unsigned);
  const keys = new Map<string, Buffer>();
  try {
    unsigned.sourceAddresses.forEach((address, i) => {
      const index = derivationIndexes[i];
      if (index === undefined) throw new BaseError('internal', `no derivation index for ${address}`);
      const script = matchKeyOf(chain, network, address);
      const branch = ([0, 1] as Branch[]).find((b) => deriveAt(chain, network, secret, b, index).matchKey === script);
      if (branch === undefined) throw new BaseError('internal', `the wallet's key at index ${index} does not control ${address}`);
      keys.set(script, privateKeyAt(chain, network, secret, branch, index));
    });
    const tx = transactionOf(p);
    const hashPrevouts = hash256(Buffer.concat(tx.inputs.map((i) => Buffer.concat([Buffer.from(i.txid, 'hex').reverse(), u32le(i.vout)]))));
    const hashSequence = hash256(Buffer.concat(tx.inputs.map((i) => u32le(i.sequence))));
    const hashOutputs = hash256(Buffer.concat(tx.outputs.map((o) => Buffer.concat([u64le(o.value), varBytes(o.script)]))));
    tx.inputs.forEach((input, n) => {
      const coin = p.inputs[n] as (typeof p.inputs)[number];
      const key = keys.get(coin.script);
      if (!key) throw new BaseError('internal', `no key for input ${coin.txid}:${coin.vout}`);
      const pub = publicKeyOf(key);
      const scriptCode = Buffer.concat([Buffer.from('1976a914', 'hex'), hash160(pub), Buffer.from('88ac', 'hex')]);
      const preimage = Buffer.concat([
        u32le(tx.version),
        hashPrevouts,
        hashSequence,
        Buffer.from(input.txid, 'hex').reverse(),
        u32le(input.vout),
        scriptCode,
        u64le(BigInt(coin.value)),
        u32le(input.sequence),
        hashOutputs,
        u32le(tx.locktime),
        u32le(SIGHASH_ALL),
      ]);
      input.witness = [Buffer.concat([signSighashPreimage(key, preimage), Buffer.from([SIGHASH_ALL])]), pub];
    });
    return { raw: serializeTransaction(tx, true).toString('hex'), txHash: txidOf(tx) };
  } finally {
    for (const k of keys.values()) k.fill(0);
  }
}
