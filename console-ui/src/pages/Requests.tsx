import { useEffect, useState } from 'preact/hooks';
import { api, approvalsOf, errorText, type InboxRequest } from '../api';
import { navigate } from '../router';
import { ErrorLine } from '../fields';
import { Amount } from '../amount';

/** Shortens a long address for a table cell; the detail view shows it whole. */
export const short = (s: string | null): string => (s === null ? 'several' : s.length > 16 ? `${s.slice(0, 8)}…${s.slice(-6)}` : s);

type Tab = 'pending' | 'approved' | 'rejected' | 'expired';
const TABS: { tab: Tab; label: string; empty: string }[] = [
  { tab: 'pending', label: 'Pending', empty: 'Nothing is waiting for approval.' },
  { tab: 'approved', label: 'Approved', empty: 'No approved requests.' },
  { tab: 'rejected', label: 'Rejected', empty: 'No rejected requests.' },
  { tab: 'expired', label: 'Expired', empty: 'No expired requests (approvals whose funds stayed short).' },
];

/** The inbox by status (pending first), newest first (the API's order). */
export function Requests() {
  const [tab, setTab] = useState<Tab>('pending');
  const [rows, setRows] = useState<InboxRequest[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    setRows(null);
    api<{ data: InboxRequest[] }>('GET', `/requests?status=${tab}`)
      .then((r) => setRows(r.data))
      .catch((e) => setError(errorText(e)));
  }, [tab]);

  const open = (id: number) => (e: Event) => {
    e.preventDefault();
    navigate(`/console/requests/${id}`);
  };

  return (
    <>
      <h1>Withdrawal requests</h1>
      <p class="muted">Requests a spending policy holds for people to approve. Open one to approve or reject it.</p>
      <div class="tabs" role="tablist">
        {TABS.map((t) => (
          <button key={t.tab} type="button" role="tab" aria-selected={tab === t.tab} class="tab" onClick={() => setTab(t.tab)}>
            {t.label}
          </button>
        ))}
      </div>
      <ErrorLine error={error} />
      {rows === null && !error && <p>Loading…</p>}
      {rows?.length === 0 && <p data-testid="inbox-empty">{TABS.find((t) => t.tab === tab)?.empty}</p>}
      {rows && rows.length > 0 && (
        <table data-testid="inbox">
          <thead>
            <tr>
              <th>Request</th>
              <th>Wallet</th>
              <th>Amount</th>
              <th>Destination</th>
              <th>Proposed by</th>
              <th>{tab === 'pending' ? 'Approvals' : 'Votes'}</th>
              <th>{tab === 'approved' ? 'Withdrawal' : 'Policies'}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id}>
                <td>
                  <a href={`/console/requests/${r.id}`} onClick={open(r.id)}>
                    #{r.id}
                  </a>
                </td>
                <td>{r.walletName}</td>
                <td class="num">
                  <Amount value={r.amount} symbol={r.asset.symbol} />
                </td>
                <td>
                  <code title={r.toAddress ?? undefined}>{short(r.toAddress)}</code>
                </td>
                <td>{proposer(r)}</td>
                <td>
                  {approvalsOf(r)} of {r.requiredApprovals}
                </td>
                <td>{tab === 'approved' ? preparedText(r) : policyList(r) || '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** An approved request's withdrawal, or that it still waits to be prepared. */
export const preparedText = (r: InboxRequest): string => (r.withdrawalId !== null ? `#${r.withdrawalId}` : 'not yet prepared');

/** Who proposed: a member by email, or the API key that did it on their behalf. */
export function proposer(r: InboxRequest): string {
  if (r.proposedByEmail) return r.proposedByEmail;
  if (r.proposedByKey !== null) return `API key #${r.proposedByKey}`;
  return 'unknown';
}

/** The policies that asked for approval, as `#3, #7`. */
export const policyList = (r: InboxRequest): string =>
  r.policyIds
    .split(',')
    .filter(Boolean)
    .map((p) => `#${p}`)
    .join(', ');
