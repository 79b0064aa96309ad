import type { UnsignedWithdrawal, VerifyContext, WithdrawalVerdict } from '@walletd/plugin-kit';
import { payloadOf } from './payload';
import { signatureStatus } from './signatureStatus';
import type { SolanaReader } from './solanaReader';

export async function verifySolanaWithdrawal(
  unsigned: UnsignedWithdrawal,
  txHash: string,
  reader: SolanaReader,
  context?: VerifyContext,
): Promise<WithdrawalVerdict> {
  const p = payloadOf(unsigned);
  const status = await signatureStatus(reader, txHash);
  if (!status) {
    // Unknown to the node: gone for good only once the finalized chain is past its validity.
    const finalizedHeight = BigInt(await reader.call<number | string>('getBlockHeight', [{ commitment: 'finalized' }]));
    if (finalizedHeight > BigInt(p.lastValidBlockHeight) && !(await signatureStatus(reader, txHash)))
      return { status: 'rejected', confirmations: 0, reason: context?.seenInBlock ? 'reorg' : 'expired' };
    return { status: 'missing', confirmations: 0 };
  }
  const tx = await reader.call<{
    slot: number | string;
    meta: { err: unknown; fee: number | string; preBalances: (number | string)[]; postBalances: (number | string)[] } & {
      preTokenBalances?: { accountIndex: number; mint: string; uiTokenAmount: { amount: string } }[];
      postTokenBalances?: { accountIndex: number; mint: string; uiTokenAmount: { amount: string } }[];
      loadedAddresses?: { writable: string[]; readonly: string[] };
    };
    transaction: { message: { accountKeys: string[] } };
  } | null>('getTransaction', [txHash, { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' }]);
  if (!tx) return { status: 'pending', confirmations: 0 };
  const blockNumber = BigInt(tx.slot);
  const keys = [
    ...tx.transaction.message.accountKeys,
    ...(tx.meta.loadedAddresses?.writable ?? []),
    ...(tx.meta.loadedAddresses?.readonly ?? []),
  ];
  const lamportsAt = (account: string | undefined) => {
    const i = account === undefined ? -1 : keys.indexOf(account);
    if (i < 0) return { pre: 0n, post: 0n };
    return { pre: BigInt(tx.meta.preBalances[i] ?? 0), post: BigInt(tx.meta.postBalances[i] ?? 0) };
  };
  // The recipient's token account created here: its lamports are the rent the fee payer paid.
  const created = p.kind === 'token' ? lamportsAt(p.recipientTokenAccount) : { pre: 0n, post: 0n };
  const rent = created.pre === 0n ? created.post : 0n;
  const fee = BigInt(tx.meta.fee) + rent;
  if (tx.meta.err !== null) return { status: 'rejected', confirmations: 0, fee, blockNumber, reason: 'failed_on_chain' };
  let paid: boolean;
  if (p.kind === 'sol') {
    const r = lamportsAt(p.recipient);
    paid = r.post - r.pre === BigInt(p.amount);
  } else {
    const i = keys.indexOf(p.recipientTokenAccount as string);
    const amount = (list?: { accountIndex: number; mint: string; uiTokenAmount: { amount: string } }[]) =>
      BigInt(list?.find((b) => b.accountIndex === i && b.mint === p.mint)?.uiTokenAmount.amount ?? '0');
    paid = i >= 0 && amount(tx.meta.postTokenBalances) - amount(tx.meta.preTokenBalances) === BigInt(p.amount);
  }
  if (!paid) return { status: 'pending', confirmations: 0, blockNumber };
  const head = await reader.head();
  return { status: 'confirmed', confirmations: Number(head - blockNumber + 1n), fee, blockNumber };
}
