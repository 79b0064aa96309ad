import { createPublicKey, verify as edVerify } from 'node:crypto';
import type { Address, Transaction } from '@solana/kit';
import { BaseError, type CheckedSignedWithdrawal, type UnsignedWithdrawal } from '@walletd/plugin-kit';
import { type MessageSummary, base58, summarizeMessage } from '../message';
import { type SolanaTxPayload, b64, maxFee, payloadOf } from '../payload';
import { solanaKit } from '../sdk';

function verifySignature(signer: string, message: Uint8Array, signature: Uint8Array): boolean {
  const spki = Buffer.concat([
    Buffer.from('302a300506032b6570032100', 'hex'),
    Buffer.from(solanaKit().getAddressEncoder().encode(solanaKit().address(signer))),
  ]);
  try {
    return edVerify(null, message, createPublicKey({ key: spki, format: 'der', type: 'spki' }), signature);
  } catch {
    return false;
  }
}

/** The first difference between what was signed and what the withdrawal pays, or null. */
function difference(signed: MessageSummary, p: SolanaTxPayload, expected: MessageSummary): string | null {
  if (signed.unknown.length > 0) return `it carries instructions a withdrawal does not: ${signed.unknown.join(', ')}`;
  const t = signed.transfer;
  if (!t) return 'it pays nobody';
  const kind = t.mint === undefined ? 'sol' : 'token';
  if (kind !== p.kind)
    return `it moves ${kind === 'sol' ? 'SOL' : `token ${t.mint}`} instead of ${p.kind === 'sol' ? 'SOL' : `token ${p.mint}`}`;
  if (kind === 'token' && (t.mint !== p.mint || t.program !== p.tokenProgram)) return `it moves mint ${t.mint} instead of ${p.mint}`;
  const to = kind === 'sol' ? p.recipient : p.recipientTokenAccount;
  if (t.to !== to) return `it pays ${t.to} instead of ${to}`;
  if (t.amount !== BigInt(p.amount)) return `it pays ${t.amount} base units instead of ${p.amount}`;
  const from = kind === 'sol' ? p.source : p.sourceTokenAccount;
  if (t.from !== from) return `it spends from ${t.from} instead of ${from}`;
  if (kind === 'token' && t.authority !== p.source) return `it is authorised by ${t.authority} instead of the source ${p.source}`;
  if (kind === 'token' && t.decimals !== expected.transfer?.decimals) return `its decimals ${t.decimals} differ`;
  if (signed.feePayer !== p.feePayer) return `its fee payer is ${signed.feePayer} instead of ${p.feePayer}`;
  if (JSON.stringify(signed.createsAccount) !== JSON.stringify(expected.createsAccount))
    return signed.createsAccount ? 'it creates an account the withdrawal does not' : "it does not create the recipient's token account";
  if (signed.blockhash !== p.blockhash) return `its blockhash ${signed.blockhash} is not the prepared one ${p.blockhash}`;
  return null;
}

/**
 * A transaction signed elsewhere is accepted only when it is a walletd withdrawal paying
 * exactly the intent: the same transfer (SOL or the mint, recipient or its associated token
 * account, amount, source and authority), the same fee payer and account creation, the
 * blockhash of the prepared or the fresh build (its validity limit is then known), every
 * signature present and valid. The compute-unit price is the signer's, up to twice the fee bound.
 */
export function checkSignedSolanaWithdrawal(
  prepared: UnsignedWithdrawal,
  raw: string,
  fresh?: UnsignedWithdrawal,
): CheckedSignedWithdrawal {
  let tx: Transaction;
  let summary: MessageSummary;
  try {
    tx = solanaKit()
      .getTransactionDecoder()
      .decode(new Uint8Array(Buffer.from(raw, 'base64')));
    summary = summarizeMessage(new Uint8Array(tx.messageBytes));
  } catch (e) {
    throw new BaseError(
      'unprocessable',
      `signedTransaction is not a base64 wire-format Solana transaction: ${(e as Error).message.slice(0, 160)}`,
    );
  }
  const refuse = (what: string): never => {
    throw new BaseError('unprocessable', `the signed transaction does not pay the prepared withdrawal: ${what}`);
  };
  const candidates = [fresh, prepared].filter((u): u is UnsignedWithdrawal => u !== undefined);
  const match = candidates.find((u) => payloadOf(u).blockhash === summary.blockhash) ?? candidates[0] ?? prepared;
  const p = payloadOf(match);
  const expected = summarizeMessage(new Uint8Array(Buffer.from(p.message, 'base64')));
  const diff = difference(summary, p, expected);
  if (diff) refuse(diff);
  for (const signer of summary.signers) {
    const signature = tx.signatures[signer as Address];
    if (!signature) refuse(`it lacks the signature of ${signer}`);
    if (!verifySignature(signer, new Uint8Array(tx.messageBytes), signature as Uint8Array))
      refuse(`the signature of ${signer} is not valid`);
  }
  const cuLimit = summary.computeUnitLimit ?? 200_000;
  const cuPrice = summary.computeUnitPrice ?? 0n;
  const fee = maxFee(summary.signers.length, cuLimit, cuPrice, BigInt(p.accountRent));
  if (fee > match.fee * 2n) refuse(`its fee bound ${fee} lamports is more than twice the prepared ${match.fee}`);
  const payload: SolanaTxPayload = {
    ...p,
    message: b64(new Uint8Array(tx.messageBytes)),
    computeUnitLimit: cuLimit,
    computeUnitPrice: cuPrice.toString(),
    signers: summary.signers,
  };
  const txHash = base58(tx.signatures[summary.feePayer as Address] as Uint8Array);
  return {
    signed: { raw: solanaKit().getBase64EncodedWireTransaction(tx), txHash },
    payload,
    fee,
    ...(match.expiresAt ? { expiresAt: match.expiresAt } : {}),
  };
}
