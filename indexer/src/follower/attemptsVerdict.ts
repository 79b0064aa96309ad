import {
  type AttemptRow,
  type ChainReader,
  type SignedWithdrawal,
  type WithdrawalRow,
  type WithdrawalVerbs,
  attemptUnsigned,
} from '@walletd/core';

type Verdict = Awaited<ReturnType<WithdrawalVerbs['verify']>>;

export interface AttemptsVerdict {
  /** The verdict of the attempt that settles the withdrawal (its `txHash` set), or the combined one. */
  verdict: Verdict;
  /** The attempt that landed was an on-chain cancel: the withdrawal ends `rejected` `cancelled_onchain`. */
  cancel: boolean;
  /** What to send again while the nonce is free and the node knows none of them: the latest. */
  resend: SignedWithdrawal | null;
}

/**
 * A replaced withdrawal (issue 46 §4) judged by all its transactions on the one nonce. Only one can
 * land: a verdict with a block (paid, reverted, or mined but not the intent) settles it with that
 * transaction's hash; otherwise one the node holds keeps it pending; when none is known and the nonce
 * is still free the latest is sent again; when every one is gone (the nonce went to a transaction
 * walletd did not make) the withdrawal is rejected as the original would be.
 */
export async function verifyAttempts(
  verbs: WithdrawalVerbs,
  row: WithdrawalRow,
  attempts: AttemptRow[],
  reader: ChainReader,
  seenInBlock: boolean,
): Promise<AttemptsVerdict> {
  const judged: { attempt: AttemptRow; verdict: Verdict }[] = [];
  for (const attempt of attempts)
    judged.push({ attempt, verdict: await verbs.verify(attemptUnsigned(row, attempt), attempt.tx_hash, reader, { seenInBlock }) });
  const landed = judged.find((j) => j.verdict.blockNumber !== undefined);
  if (landed)
    return { verdict: { ...landed.verdict, txHash: landed.attempt.tx_hash }, cancel: landed.attempt.kind === 'cancel', resend: null };
  const pending = judged.find((j) => j.verdict.status === 'pending');
  if (pending) return { verdict: pending.verdict, cancel: false, resend: null };
  const latest = attempts.at(-1);
  if (latest && judged.some((j) => j.verdict.status === 'missing'))
    return { verdict: { status: 'missing', confirmations: 0 }, cancel: false, resend: { raw: latest.signed_tx, txHash: latest.tx_hash } };
  return { verdict: judged[0]?.verdict ?? { status: 'missing', confirmations: 0 }, cancel: false, resend: null };
}
