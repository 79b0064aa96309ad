import type { UnsignedWithdrawal } from '@walletd/plugin-kit';
import { LAMPORTS_PER_SIGNATURE } from './programs';

/** The unsigned transaction a Solana withdrawal carries (JSON-safe: amounts as decimal strings). */
export interface SolanaTxPayload {
  kind: 'sol' | 'token';
  /** The compiled v0 message, base64: what every signer signs. */
  message: string;
  blockhash: string;
  /** The last block height (not slot) at which the blockhash is valid. */
  lastValidBlockHeight: string;
  feePayer: string;
  source: string;
  recipient: string;
  amount: string;
  mint?: string;
  tokenProgram?: string;
  sourceTokenAccount?: string;
  recipientTokenAccount?: string;
  /** Lamports the fee payer puts into the recipient's new associated token account ("0": it exists). */
  accountRent: string;
  computeUnitLimit: number;
  /** Micro-lamports per compute unit. */
  computeUnitPrice: string;
  /** The message's signers in order (the fee payer first). */
  signers: string[];
}

export const payloadOf = (u: UnsignedWithdrawal) => u.payload as SolanaTxPayload;
export const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** Lamports the transaction can cost its fee payer: signatures, the priority fee (rounded up), and the new account's rent. */
export function maxFee(signers: number, cuLimit: number, cuPrice: bigint, accountRent: bigint): bigint {
  return LAMPORTS_PER_SIGNATURE * BigInt(signers) + (BigInt(cuLimit) * cuPrice + 999_999n) / 1_000_000n + accountRent;
}
