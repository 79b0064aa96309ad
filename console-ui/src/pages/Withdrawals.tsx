import { useEffect, useState } from 'preact/hooks';
import { api, errorText, type Withdrawal, when } from '../api';
import { Amount } from '../amount';
import { ErrorLine, Pager } from '../fields';
import { navigate } from '../router';
import { short } from './Requests';

const STATUSES = ['prepared', 'signed', 'broadcast', 'confirmed', 'rejected', 'cancelled'];

/** The fee paid, or while in flight the most it may cost. */
export const feeText = (w: Withdrawal): string =>
  w.fee ? `${w.fee.amount} ${w.fee.asset.symbol}` : w.feeEstimate ? `≤ ${w.feeEstimate.amount} ${w.feeEstimate.asset.symbol}` : '—';

/** The fee as a figure: paid, or "≤" the cap while in flight. */
export function Fee({ w }: { w: Withdrawal }) {
  if (w.fee) return <Amount value={w.fee.amount} symbol={w.fee.asset.symbol} />;
  if (w.feeEstimate)
    return (
      <>
        ≤ <Amount value={w.feeEstimate.amount} symbol={w.feeEstimate.asset.symbol} />
      </>
    );
  return <>—</>;
}

const KINDS: Record<Withdrawal['kind'], string> = { payout: 'payout', sweep: 'sweep', gas_topup: 'gas top-up' };

/** What a withdrawal is: a payout, or a sweep or gas top-up walletd started on its own (which rule). */
export const kindText = (w: Withdrawal): string => KINDS[w.kind] ?? w.kind;

/** Who or what started it: the member or API key that proposed it, the sweep rule, the gas station. */
export const startedByText = (w: Withdrawal): string =>
  w.proposedBy ?? (w.kind === 'sweep' ? `sweep rule #${w.sweepRuleId}` : w.kind === 'gas_topup' ? 'gas station' : '—');

export const approversText = (w: Withdrawal): string => (w.approvedBy.length ? w.approvedBy.map((a) => a.email).join(', ') : '—');

/** Every withdrawal of the company, newest first, filtered by kind and status; pages by the id keyset (`next`). */
export function Withdrawals() {
  const [status, setStatus] = useState('');
  const [kind, setKind] = useState('');
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<{ withdrawals: Withdrawal[]; next: string | null } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const after = cursors[cursors.length - 1];

  useEffect(() => {
    const params = new URLSearchParams({ limit: '25' });
    if (status) params.set('status', status);
    if (kind) params.set('kind', kind);
    if (after) params.set('after', after);
    api<{ withdrawals: Withdrawal[]; next: string | null }>('GET', `/withdrawals?${params}`)
      .then(setPage)
      .catch((e) => setError(errorText(e)));
  }, [status, kind, after]);

  const open = (id: number) => (e: Event) => {
    e.preventDefault();
    navigate(`/console/withdrawals/${id}`);
  };

  return (
    <>
      <h1>Withdrawals</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Kind
          <select
            name="kind"
            value={kind}
            onChange={(e) => {
              setCursors([undefined]);
              setKind(e.currentTarget.value);
            }}
          >
            <option value="">Any kind</option>
            {Object.entries(KINDS).map(([k, text]) => (
              <option key={k} value={k}>
                {text}
              </option>
            ))}
          </select>
        </label>
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
              <th>Kind</th>
              <th>Status</th>
              <th>Wallet</th>
              <th class="num">Amount</th>
              <th>Destination</th>
              <th class="num">Fee</th>
              <th>Hash</th>
              <th>Started by</th>
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
                <td>{kindText(w)}</td>
                <td>
                  <span class={`status ${w.status}`}>{w.status}</span>
                </td>
                <td>{w.walletName ?? `#${w.walletId}`}</td>
                <td class="num">
                  <Amount value={w.amount} symbol={w.asset.symbol} />
                </td>
                <td>
                  <code title={w.toAddress ?? undefined}>{short(w.toAddress)}</code>
                </td>
                <td class="num">
                  <Fee w={w} />
                </td>
                <td>{w.txHash ? <code title={w.txHash}>{short(w.txHash)}</code> : '—'}</td>
                <td class="people">{startedByText(w)}</td>
                <td class="people">{approversText(w)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager cursors={cursors} setCursors={setCursors} next={page?.next} />
    </>
  );
}
