/** The short human text chat-message and Slack webhooks carry instead of the raw envelope. */
interface EnvelopeLike {
  type: string;
  chain: string;
  network: string;
  data: { amount?: string; asset?: { symbol?: string }; toAddress?: string; txHash?: string; reason?: string; confirmations?: number };
}

const TITLES: Record<string, string> = {
  'deposit.detected': 'Deposit detected (not final)',
  'deposit.confirmed': 'Deposit confirmed',
  'deposit.rejected': 'Deposit rejected',
  'withdrawal.broadcast': 'Withdrawal broadcast',
  'withdrawal.confirmed': 'Withdrawal confirmed',
  'withdrawal.rejected': 'Withdrawal rejected',
  'reconciliation.drift': 'Balance drift (node differs from walletd)',
  'reconciliation.cleared': 'Balance drift cleared',
};

const short = (s: string | undefined) => (s && s.length > 20 ? `${s.slice(0, 10)}…${s.slice(-6)}` : (s ?? ''));

export function chatMessage(body: string): string {
  const e = JSON.parse(body) as EnvelopeLike;
  const d = e.data;
  const parts = [`${TITLES[e.type] ?? e.type}: ${d.amount ?? ''} ${d.asset?.symbol ?? ''}`.trim()];
  if (d.toAddress) parts.push(`to ${short(d.toAddress)}`);
  parts.push(`on ${e.chain}/${e.network}`);
  if (d.txHash) parts.push(`(tx ${short(d.txHash)})`);
  if (d.reason) parts.push(`reason: ${d.reason}`);
  return parts.join(' ');
}
