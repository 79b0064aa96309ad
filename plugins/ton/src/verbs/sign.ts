import { Address, Cell, beginCell, external, internal, storeMessage } from '@ton/core';
import { signVerify } from '@ton/crypto';
import type { WalletContractV5R1 } from '@ton/ton';
import { BaseError, type SignedWithdrawal, type UnsignedWithdrawal, type WalletSecret } from '@walletd/plugin-kit';
import { tonKey, walletOf } from '../addresses';
import { SEND_MODE, type TonPayload, messageHash, payloadOf } from '../payload';

type Sign = { secretKey: Buffer } | { signer: (message: Cell) => Promise<Buffer> };

/**
 * The source's key: held in the token where its address's is (`secret.signerAt`, issue 45 §3),
 * else derived from the seed at the address's index (the seed is opened only then). A token signs
 * what the wallet contract checks: the Ed25519 signature of the signed body cell's hash, verified
 * here against the token's key before it leaves.
 */
async function keyOf(
  p: TonPayload,
  secret: WalletSecret,
  index: number,
): Promise<{ wallet: WalletContractV5R1; sign: Sign; done: () => void }> {
  const held = secret.signerAt?.(index);
  if (held && held.curve === 'ed25519') {
    const publicKey = Buffer.from(held.publicKey());
    const wallet = walletOf(p.network, publicKey);
    if (wallet.address.toRawString() === p.source) {
      const signer = async (message: Cell) => {
        const hash = message.hash();
        const signature = Buffer.from(await held.sign(hash));
        if (!signVerify(hash, signature, publicKey))
          throw new BaseError('internal', 'the token’s signature does not verify against its key');
        return signature;
      };
      return { wallet, sign: { signer }, done: () => {} };
    }
  }
  const seed = secret.seed();
  let key: { secretKey: Buffer; publicKey: Buffer };
  try {
    key = tonKey(seed, index);
  } finally {
    seed.fill(0);
  }
  const wallet = walletOf(p.network, key.publicKey);
  if (wallet.address.toRawString() !== p.source) {
    key.secretKey.fill(0);
    throw new BaseError('internal', 'neither the token nor the derived key controls the source wallet');
  }
  return { wallet, sign: { secretKey: key.secretKey }, done: () => key.secretKey.fill(0) };
}

export async function signTonWithdrawal(
  unsigned: UnsignedWithdrawal,
  secret: WalletSecret,
  derivationIndexes: number[],
): Promise<SignedWithdrawal> {
  const p = payloadOf(unsigned);
  const { wallet, sign, done } = await keyOf(p, secret, derivationIndexes[0] ?? 0);
  try {
    const body = await wallet.createTransfer({
      seqno: p.seqno,
      ...sign,
      timeout: p.validUntil,
      sendMode: SEND_MODE,
      messages: [
        internal({
          to: Address.parseRaw(p.message.to),
          value: BigInt(p.message.value),
          bounce: p.message.bounce,
          body: p.message.body ? Cell.fromBase64(p.message.body) : undefined,
        }),
      ],
    });
    const ext = external({ to: wallet.address, init: p.deploy ? wallet.init : undefined, body });
    const raw = beginCell().store(storeMessage(ext)).endCell().toBoc().toString('base64');
    return { raw, txHash: messageHash(raw) };
  } finally {
    done();
  }
}
