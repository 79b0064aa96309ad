import { BaseError, type SignedWithdrawal, type UnsignedWithdrawal, type WalletSecret } from '@walletd/plugin-kit';
import { matchKeyOf } from '../addresses';
import { bitcoin } from '../libs';
import { networkOf } from '../networks';
import { type Branch, type KeyNode, keyAt, scriptOfKey } from '../derive';
import { payloadOf } from '../payload';

/**
 * Signs the prepared PSBT: every input is a P2WPKH coin of the wallet, signed by bitcoinjs-lib
 * (BIP-143 sighash, RFC 6979 nonce, low S) with the key bip32 derives. Each source's index is
 * within its own branch (receive or change): the key whose script is the source's is the one.
 */
export async function sign(unsigned: UnsignedWithdrawal, secret: WalletSecret, derivationIndexes: number[]): Promise<SignedWithdrawal> {
  const { chain, network } = unsigned.intent;
  const p = payloadOf(unsigned);
  const keys = new Map<string, KeyNode>();
  unsigned.sourceAddresses.forEach((address, i) => {
    const index = derivationIndexes[i];
    if (index === undefined) throw new BaseError('internal', `no derivation index for ${address}`);
    const script = matchKeyOf(chain, network, address);
    const key = ([0, 1] as Branch[]).map((b) => keyAt(chain, network, secret, b, index)).find((k) => scriptOfKey(k) === script);
    if (!key) throw new BaseError('internal', `the wallet's key at index ${index} does not control ${address}`);
    keys.set(script, key);
  });
  const psbt = bitcoin.Psbt.fromBase64(p.psbt, { network: networkOf(chain, network).params });
  p.inputs.forEach((coin, n) => {
    const key = keys.get(coin.script);
    if (!key) throw new BaseError('internal', `no key for input ${coin.txid}:${coin.vout}`);
    psbt.signInput(n, key);
  });
  psbt.finalizeAllInputs();
  const tx = psbt.extractTransaction();
  return { raw: tx.toHex(), txHash: tx.getId() };
}
