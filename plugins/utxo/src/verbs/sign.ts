import { BaseError, type KeySigner, type SignedWithdrawal, type UnsignedWithdrawal, type WalletSecret } from '@walletd/plugin-kit';
import { compressedKey, keyScript, scriptOf } from '../addresses';
import { bip32, bitcoin, ecc } from '../libs';
import { type UtxoNetwork, utxoNetwork } from '../networks';
import type { UtxoTxPayload } from '../payload';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

type Root = ReturnType<typeof bip32.fromSeed>;
type InputSigner = Parameters<InstanceType<typeof bitcoin.Psbt>['signInputAsync']>[1];

/**
 * A key held in a token (or a KMS) as bitcoinjs' async signer (issue 45 §3): the token signs the
 * input's sighash and answers a low-s `r‖s`, which bitcoinjs encodes as DER with the sighash byte.
 * Its compressed key is the one the P2WPKH / P2PKH script commits to.
 */
function heldSigner(net: UtxoNetwork, held: KeySigner, script: string): InputSigner | undefined {
  if (held.curve !== 'secp256k1') return undefined;
  const publicKey = compressedKey(held.publicKey());
  if (hex(keyScript(net, publicKey)) !== script) return undefined;
  return { publicKey, sign: async (hash: Uint8Array) => Uint8Array.from(await held.sign(hash)) };
}

/** The wallet's key at `index` on the branch, receive (0) or change (1), whose script is `script`. */
function derivedSigner(net: UtxoNetwork, root: Root, index: number, script: string): InputSigner | undefined {
  return ([0, 1] as const)
    .map((branch) => root.derivePath(`m/${net.purpose}'/${net.coinType}'/0'/${branch}/${index}`))
    .find((k) => hex(keyScript(net, k.publicKey)) === script);
}

/**
 * Signs each input with the key of its address: a key held in the token where the address's is
 * (`secret.signerAt`), else the wallet's HD key on the receive or change branch (BIP-84/BIP-44
 * paths of the network); one payout may mix both. The seed is opened only for HD inputs.
 */
export async function signUtxoWithdrawal(
  unsigned: UnsignedWithdrawal,
  secret: WalletSecret,
  derivationIndexes: number[],
): Promise<SignedWithdrawal> {
  const net = utxoNetwork(unsigned.intent.chain, unsigned.intent.network);
  const p = unsigned.payload as UtxoTxPayload;
  const psbt = bitcoin.Psbt.fromBase64(p.psbt, { network: net.params });
  let root: Root | undefined;
  const hdRoot = (): Root => {
    if (!root) {
      const seed = secret.seed();
      root = bip32.fromSeed(Buffer.from(seed), net.params);
      seed.fill(0);
    }
    return root;
  };
  const signerFor = new Map<string, InputSigner>();
  unsigned.sourceAddresses.forEach((address, i) => {
    const index = derivationIndexes[i];
    if (index === undefined) throw new BaseError('internal', `no derivation index for ${address}`);
    const script = hex(scriptOf(net, address));
    // A change address may share its index with a token-held receive address: the script decides.
    const held = secret.signerAt?.(index);
    const signer = (held && heldSigner(net, held, script)) || derivedSigner(net, hdRoot(), index, script);
    if (!signer) throw new BaseError('internal', `neither the token nor the wallet's key at index ${index} controls ${address}`);
    signerFor.set(address, signer);
  });
  for (const [i, c] of p.inputs.entries()) {
    const signer = signerFor.get(c.address);
    if (!signer) throw new BaseError('internal', `no key for input ${c.txid}:${c.vout} (${c.address})`);
    await psbt.signInputAsync(i, signer);
  }
  // A token's answer is checked before it leaves: a signature of another key or digest is refused here.
  if (!psbt.validateSignaturesOfAllInputs((pubkey, hash, signature) => ecc.verify(hash, pubkey, signature)))
    throw new BaseError('internal', 'an input signature does not verify against its key');
  psbt.finalizeAllInputs();
  const tx = psbt.extractTransaction();
  return { raw: tx.toHex(), txHash: tx.getId() };
}
