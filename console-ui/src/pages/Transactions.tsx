import { useEffect, useState } from 'preact/hooks';
import { api, errorText, type OverviewWallet, type Transaction, when } from '../api';
import { Amount } from '../amount';
import { ErrorLine, Pager } from '../fields';
import { navigate } from '../router';
import { short } from './Requests';

/** Where a transaction is in its life: detected → confirmed, or retracted (a deposit) / rejected (a withdrawal). */
export function lifecycleText(t: Pick<Transaction, 'kind' | 'status' | 'confirmations' | 'reason'>): string {
  if (t.status === 'confirmed') return `detected → confirmed (${t.confirmations} confirmations)`;
  if (t.status === 'rejected') return `${t.kind === 'deposit' ? 'retracted' : 'rejected'}${t.reason ? `: ${t.reason}` : ''}`;
  // A deposit pending with a reason is held: it never confirms by itself (docs/guide/deposits.md, "Zero amounts and tokens that misreport").
  if (t.kind === 'deposit' && t.reason) return `held: ${t.reason}`;
  return `detected, ${t.confirmations} confirmations so far`;
}

/** The detail page of a row: a deposit's own, a withdrawal's on the withdrawals page. */
export const transactionHref = (t: Transaction): string =>
  t.kind === 'deposit' ? `/console/transactions/deposits/${t.id}` : `/console/withdrawals/${t.withdrawalId}`;

/**
 * Deposits and withdrawals on chain, newest first, searchable by hash or address and filtered by
 * wallet; pages follow the server's keyset cursor (`next`), so rows arriving meanwhile never shift a page.
 */
export function Transactions() {
  const [wallets, setWallets] = useState<OverviewWallet[]>([]);
  const [q, setQ] = useState('');
  const [walletId, setWalletId] = useState('');
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<{ transactions: Transaction[]; next: string | null } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [filter, setFilter] = useState<{ q: string; walletId: string }>({ q: '', walletId: '' });

  useEffect(() => {
    api<{ wallets: OverviewWallet[] }>('GET', '/overview')
      .then((o) => setWallets(o.wallets))
      .catch(() => setWallets([]));
  }, []);

  const after = cursors[cursors.length - 1];
  useEffect(() => {
    const params = new URLSearchParams({ limit: '25' });
    if (filter.q) params.set('q', filter.q);
    if (filter.walletId) params.set('walletId', filter.walletId);
    if (after) params.set('after', after);
    setError(null);
    api<{ transactions: Transaction[]; next: string | null }>('GET', `/transactions?${params}`)
      .then(setPage)
      .catch((e) => {
        setPage({ transactions: [], next: null });
        setError(errorText(e));
      });
  }, [filter, after]);

  const search = (e: Event) => {
    e.preventDefault();
    setCursors([undefined]);
    setFilter({ q: q.trim(), walletId });
  };
  const open = (href: string) => (e: Event) => {
    e.preventDefault();
    navigate(href);
  };

  return (
    <>
      <h1>Transactions</h1>
      <form class="filters" onSubmit={search}>
        <label>
          Hash or address
          <input name="q" value={q} onInput={(e) => setQ(e.currentTarget.value)} placeholder="0x… or an address" />
        </label>
        <label>
          Wallet
          <select name="walletId" value={walletId} onChange={(e) => setWalletId(e.currentTarget.value)}>
            <option value="">All wallets</option>
            {wallets.map((w) => (
              <option key={w.id} value={String(w.id)}>
                {w.name} ({w.chain} / {w.network})
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Search</button>
      </form>
      <ErrorLine error={error} />
      {page === null && <p>Loading…</p>}
      {page?.transactions.length === 0 && !error && <p data-testid="transactions-empty">No transactions match.</p>}
      {page && page.transactions.length > 0 && (
        <table data-testid="transactions">
          <thead>
            <tr>
              <th>When</th>
              <th>Wallet</th>
              <th>Kind</th>
              <th class="num">Amount</th>
              <th>Hash</th>
              <th>From → to</th>
              <th>Lifecycle</th>
            </tr>
          </thead>
          <tbody>
            {page.transactions.map((t) => (
              <tr key={`${t.kind}:${t.id}`}>
                <td>{when(t.createdAt)}</td>
                <td>{t.walletName ?? `#${t.walletId}`}</td>
                <td>{t.kind}</td>
                <td class="num">
                  <Amount value={t.amount} symbol={t.asset.symbol} />
                </td>
                <td>
                  <a href={transactionHref(t)} onClick={open(transactionHref(t))} title={t.txHash}>
                    <code>{short(t.txHash)}</code>
                  </a>
                </td>
                <td>
                  <code title={t.fromAddress ?? undefined}>{t.fromAddress ? short(t.fromAddress) : '—'}</code> →{' '}
                  <code title={t.toAddress ?? undefined}>{short(t.toAddress)}</code>
                </td>
                <td class={`lifecycle ${t.status}`}>{lifecycleText(t)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager cursors={cursors} setCursors={setCursors} next={page?.next} />
    </>
  );
}
