import { BaseError, type SignedWithdrawal, type UnsignedWithdrawal, type WalletSecret } from '@walletd/plugin-kit';
import { ethers } from '../sdk';
import type { EvmTxPayload } from '../quote';
import { evmAddressOf, signTransactionWith } from '../signWithKeySigner';

/** Signs with the key at `m/44'/60'/0'/0/<index>`, which must control the source address. */
export async function signEvmWithdrawal(
  unsigned: UnsignedWithdrawal,
  secret: WalletSecret,
  derivationIndexes: number[],
): Promise<SignedWithdrawal> {
  const p = unsigned.payload as EvmTxPayload;
  const index = derivationIndexes[0];
  if (index === undefined) throw new BaseError('internal', 'a derivation index is required to sign');
  const request = {
    type: 2,
    chainId: BigInt(p.chainId),
    nonce: p.nonce,
    to: p.to,
    value: BigInt(p.value),
    data: p.data,
    gasLimit: BigInt(p.gasLimit),
    maxFeePerGas: BigInt(p.maxFeePerGas),
    maxPriorityFeePerGas: BigInt(p.maxPriorityFeePerGas),
  };
  // A key held in a token signs there (issue 45 §3): the seed is not opened for it.
  const held = secret.signerAt?.(index);
  if (held) {
    if (evmAddressOf(held).toLowerCase() !== unsigned.sourceAddresses[0]?.toLowerCase()) {
      throw new BaseError('internal', 'the token-held key does not control the source address');
    }
    const raw = await signTransactionWith(held, request);
    return { raw, txHash: ethers().keccak256(raw) };
  }
  const seed = secret.seed();
  const key = ethers().HDNodeWallet.fromSeed(seed).derivePath(`m/44'/60'/0'/0/${index}`);
  seed.fill(0);
  if (key.address.toLowerCase() !== unsigned.sourceAddresses[0]?.toLowerCase()) {
    throw new BaseError('internal', 'the derived key does not control the source address');
  }
  const raw = await key.signTransaction(request);
  return { raw, txHash: ethers().keccak256(raw) };
}
