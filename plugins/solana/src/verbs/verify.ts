import type { UnsignedWithdrawal, VerifyContext, WithdrawalVerdict } from '@walletd/plugin-kit';
import { payloadOf } from '../payload';
import { parseTokenContract } from '../programs';
import { signatureStatus } from '../signatureStatus';
import type { SolanaReader } from '../reader';

/** The payload pays the intent: its source, recipient, exact amount and asset (SOL, or the mint). */
function payloadIsIntent(unsigned: UnsignedWithdrawal): boolean {
  const p = payloadOf(unsigned);
  const { intent } = unsigned;
  const [output] = intent.outputs;
  const token = intent.asset.contractAddress;
  return (
    output !== undefined &&
    intent.outputs.length === 1 &&
    p.source === (unsigned.sourceAddresses[0] ?? intent.sources[0]) &&
    p.recipient === output.to &&
    BigInt(p.amount) === output.amount &&
    (token ? p.kind === 'token' && p.mint === parseTokenContract(token).mint : p.kind === 'sol')
  );
}

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
  // The balances moved as the intent says: the recipient's up by the amount and the source's down
  // by it (the fee too where it pays it). The recipient's alone would confirm a payment of the same
  // amount from anyone else under this signature.
  let paid = payloadIsIntent(unsigned);
  if (p.kind === 'sol') {
    const r = lamportsAt(p.recipient);
    const s = lamportsAt(p.source);
    const spent = BigInt(p.amount) + (p.source === p.feePayer ? BigInt(tx.meta.fee) : 0n);
    paid &&= r.post - r.pre === BigInt(p.amount) && keys.includes(p.source) && s.pre - s.post === spent;
  } else {
    const tokens = (account: string | undefined, list?: { accountIndex: number; mint: string; uiTokenAmount: { amount: string } }[]) => {
      const i = account === undefined ? -1 : keys.indexOf(account);
      return BigInt(list?.find((b) => b.accountIndex === i && b.mint === p.mint)?.uiTokenAmount.amount ?? '0');
    };
    const delta = (account: string | undefined) => tokens(account, tx.meta.postTokenBalances) - tokens(account, tx.meta.preTokenBalances);
    paid &&=
      keys.includes(p.recipientTokenAccount as string) &&
      keys.includes(p.sourceTokenAccount as string) &&
      delta(p.recipientTokenAccount) === BigInt(p.amount) &&
      delta(p.sourceTokenAccount) === -BigInt(p.amount);
  }
  if (!paid) return { status: 'pending', confirmations: 0, blockNumber };
  const head = await reader.head();
  return { status: 'confirmed', confirmations: Number(head - blockNumber + 1n), fee, blockNumber };
}
