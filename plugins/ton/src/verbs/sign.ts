import { Address, Cell, beginCell, external, internal, storeMessage } from '@ton/core';
import { BaseError, type SignedWithdrawal, type UnsignedWithdrawal, type WalletSecret } from '@walletd/plugin-kit';
import { tonKey, walletOf } from '../addresses';
import { SEND_MODE, messageHash, payloadOf } from '../payload';

export async function signTonWithdrawal(
  unsigned: UnsignedWithdrawal,
  secret: WalletSecret,
  derivationIndexes: number[],
): Promise<SignedWithdrawal> {
  const p = payloadOf(unsigned);
  const seed = secret.seed();
  let key: { secretKey: Buffer; publicKey: Buffer };
  try {
    key = tonKey(seed, derivationIndexes[0] ?? 0);
  } finally {
    seed.fill(0);
  }
  try {
    const wallet = walletOf(p.network, key.publicKey);
    if (wallet.address.toRawString() !== p.source) throw new BaseError('internal', 'the derived key does not control the source wallet');
    const body = wallet.createTransfer({
      seqno: p.seqno,
      secretKey: key.secretKey,
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
    key.secretKey.fill(0);
  }
}
