import { BaseError, type SignedWithdrawal, type UnsignedWithdrawal, type WalletSecret } from '@walletd/plugin-kit';
import { keyScript, scriptOf } from '../addresses';
import { bip32, bitcoin } from '../libs';
import { utxoNetwork } from '../networks';
import type { UtxoTxPayload } from '../payload';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** Signs each input with the key of its address, receive or change branch (BIP-84/BIP-44 paths of the network). */
export async function signUtxoWithdrawal(
  unsigned: UnsignedWithdrawal,
  secret: WalletSecret,
  derivationIndexes: number[],
): Promise<SignedWithdrawal> {
  const net = utxoNetwork(unsigned.intent.chain, unsigned.intent.network);
  const p = unsigned.payload as UtxoTxPayload;
  const psbt = bitcoin.Psbt.fromBase64(p.psbt, { network: net.params });
  const seed = secret.seed();
  const root = bip32.fromSeed(Buffer.from(seed), net.params);
  seed.fill(0);
  const keyFor = new Map<string, ReturnType<typeof root.derivePath>>();
  unsigned.sourceAddresses.forEach((address, i) => {
    const index = derivationIndexes[i];
    if (index === undefined) throw new BaseError('internal', `no derivation index for ${address}`);
    // The index is within the address's own branch: receive (0) or change (1); the key whose
    // script is the address's is the one.
    const script = hex(scriptOf(net, address));
    const key = ([0, 1] as const)
      .map((branch) => root.derivePath(`m/${net.purpose}'/${net.coinType}'/0'/${branch}/${index}`))
      .find((k) => hex(keyScript(net, k.publicKey)) === script);
    if (!key) throw new BaseError('internal', `the wallet's key at index ${index} does not control ${address}`);
    keyFor.set(address, key);
  });
  p.inputs.forEach((c, i) => {
    const key = keyFor.get(c.address);
    if (!key) throw new BaseError('internal', `no key for input ${c.txid}:${c.vout} (${c.address})`);
    psbt.signInput(i, key);
  });
  psbt.finalizeAllInputs();
  const tx = psbt.extractTransaction();
  return { raw: tx.toHex(), txHash: tx.getId() };
}
