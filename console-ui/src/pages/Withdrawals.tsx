import { useEffect, useState } from 'preact/hooks';
import { api, errorText, type Withdrawal, when } from '../api';
import { ErrorLine, Pager } from '../fields';
import { navigate } from '../router';
import { short } from './Requests';

const STATUSES = ['prepared', 'signed', 'broadcast', 'confirmed', 'rejected', 'cancelled'];

/** The fee paid, or while in flight the most it may cost. */
export const feeText = (w: Withdrawal): string =>
  w.fee ? `${w.fee.amount} ${w.fee.asset.symbol}` : w.feeEstimate ? `≤ ${w.feeEstimate.amount} ${w.feeEstimate.asset.symbol}` : '—';

export const approversText = (w: Withdrawal): string => (w.approvedBy.length ? w.approvedBy.map((a) => a.email).join(', ') : '—');

/** Every withdrawal of the company, newest first, filtered by status; pages by the id keyset (`next`). */
export function Withdrawals() {
  const [status, setStatus] = useState('');
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<{ withdrawals: Withdrawal[]; next: string | null } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const after = cursors[cursors.length - 1];

  useEffect(() => {
    const params = new URLSearchParams({ limit: '25' });
    if (status) params.set('status', status);
    if (after) params.set('after', after);
    api<{ withdrawals: Withdrawal[]; next: string | null }>('GET', `/withdrawals?${params}`)
      .then(setPage)
      .catch((e) => setError(errorText(e)));
  }, [status, after]);

  const open = (id: number) => (e: Event) => {
    e.preventDefault();
    navigate(`/console/withdrawals/${id}`);
  };

  return (
    <>
      <h1>Withdrawals</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select
            name="status"
            value={status}
            onChange={(e) => {
              setCursors([undefined]);
              setStatus(e.currentTarget.value);
            }}
          >
            <option value="">Any status</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </form>
      <ErrorLine error={error} />
      {page === null && !error && <p>Loading…</p>}
      {page?.withdrawals.length === 0 && <p data-testid="withdrawals-empty">No withdrawals.</p>}
      {page && page.withdrawals.length > 0 && (
        <table data-testid="withdrawals">
          <thead>
            <tr>
              <th>Withdrawal</th>
              <th>Status</th>
              <th>Wallet</th>
              <th class="num">Amount</th>
              <th>Destination</th>
              <th class="num">Fee</th>
              <th>Hash</th>
              <th>Proposed by</th>
              <th>Approved by</th>
            </tr>
          </thead>
          <tbody>
            {page.withdrawals.map((w) => (
              <tr key={w.id}>
                <td>
                  <a href={`/console/withdrawals/${w.id}`} onClick={open(w.id)} title={when(w.createdAt)}>
                    #{w.id}
                  </a>
                </td>
                <td>
                  <span class={`status ${w.status}`}>{w.status}</span>
                </td>
                <td>{w.walletName ?? `#${w.walletId}`}</td>
                <td class="num">
                  {w.amount} {w.asset.symbol}
                </td>
                <td>
                  <code title={w.toAddress ?? undefined}>{short(w.toAddress)}</code>
                </td>
                <td class="num">{feeText(w)}</td>
                <td>{w.txHash ? <code title={w.txHash}>{short(w.txHash)}</code> : '—'}</td>
                <td>{w.proposedBy ?? '—'}</td>
                <td>{approversText(w)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager cursors={cursors} setCursors={setCursors} next={page?.next} />
    </>
  );
}
