import { useEffect, useState } from 'preact/hooks';
import { api, approvalsOf, errorText, type InboxRequest } from '../api';
import { navigate } from '../router';
import { ErrorLine } from '../fields';

/** Shortens a long address for a table cell; the detail view shows it whole. */
export const short = (s: string | null): string => (s === null ? 'several' : s.length > 16 ? `${s.slice(0, 8)}…${s.slice(-6)}` : s);

/** The inbox: requests still waiting for people, newest first (the API's order). */
export function Requests() {
  const [rows, setRows] = useState<InboxRequest[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    api<{ data: InboxRequest[] }>('GET', '/requests?status=pending')
      .then((r) => setRows(r.data))
      .catch((e) => setError(errorText(e)));
  }, []);

  const open = (id: number) => (e: Event) => {
    e.preventDefault();
    navigate(`/console/requests/${id}`);
  };

  return (
    <>
      <h1>Withdrawal requests</h1>
      <p class="muted">Requests a spending policy holds for people to approve. Open one to approve or reject it.</p>
      <ErrorLine error={error} />
      {rows === null && !error && <p>Loading…</p>}
      {rows?.length === 0 && <p data-testid="inbox-empty">Nothing is waiting for approval.</p>}
      {rows && rows.length > 0 && (
        <table data-testid="inbox">
          <thead>
            <tr>
              <th>Request</th>
              <th>Wallet</th>
              <th>Amount</th>
              <th>Destination</th>
              <th>Proposed by</th>
              <th>Approvals</th>
              <th>Policies</th>
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
                <td>#{r.walletId}</td>
                <td class="num">
                  {r.amount} {r.asset.symbol}
                </td>
                <td>
                  <code title={r.toAddress ?? undefined}>{short(r.toAddress)}</code>
                </td>
                <td>{proposer(r)}</td>
                <td>
                  {approvalsOf(r)} of {r.requiredApprovals}
                </td>
                <td>{policyList(r) || '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

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
