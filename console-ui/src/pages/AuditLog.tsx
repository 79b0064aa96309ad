import type { ConsoleAuditRow } from '@walletd/schemas';
import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api';
import { ErrorLine, Field } from '../fields';
import type { PageProps } from '../routes';
import { manages } from './Policies';

type AuditRow = ConsoleAuditRow;

interface Filters {
  action: string;
  member: string;
  from: string;
  to: string;
}

/** A datetime-local value (the browser's local time) as an ISO instant; empty stays empty. */
const iso = (local: string) => (local ? new Date(local).toISOString() : '');

/** One line per detail, its name then its value (amounts are in display units, e.g. "0.000055 ETH"). */
function Details({ d }: { d: Record<string, unknown> | null }) {
  if (!d) return null;
  return (
    <dl>
      {Object.entries(d).map(([k, v]) => (
        <div key={k}>
          <dt>{k}:</dt> <dd>{typeof v === 'string' ? v : JSON.stringify(v)}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The audit log, newest first: who did what, when, from where; filtered, and older rows a page at a time. */
export function AuditLog({ me }: PageProps) {
  const [rows, setRows] = useState<AuditRow[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [f, setF] = useState<Filters>({ action: '', member: '', from: '', to: '' });
  const [applied, setApplied] = useState<Filters>(f);

  const load = async (filters: Filters, cursor: string | null) => {
    setError(null);
    const q = new URLSearchParams();
    if (filters.action) q.set('action', filters.action);
    if (filters.member) q.set('member', filters.member);
    if (filters.from) q.set('from', iso(filters.from));
    if (filters.to) q.set('to', iso(filters.to));
    if (cursor) q.set('cursor', cursor);
    try {
      const page = await api<{ data: AuditRow[]; nextCursor: string | null }>('GET', `/audit?${q}`);
      setRows(cursor ? [...(rows ?? []), ...page.data] : page.data);
      setNext(page.nextCursor);
      setApplied(filters);
    } catch (e) {
      setError(errorText(e));
    }
  };
  useEffect(() => {
    if (manages(me.role)) void load(f, null);
  }, []);

  if (!manages(me.role)) {
    return (
      <>
        <h1>Audit log</h1>
        <p>Only owners and admins read the audit log. Your role is {me.role}.</p>
      </>
    );
  }
  const set = (k: keyof Filters) => (v: string) => setF({ ...f, [k]: v });
  return (
    <>
      <h1>Audit log</h1>
      <p class="muted">
        Every sign-in, vote, policy, key and webhook change, and secret export, newest first. Rows are never changed or deleted.
      </p>
      <form
        class="filters"
        data-testid="audit-filters"
        onSubmit={(e) => {
          e.preventDefault();
          void load(f, null);
        }}
      >
        <Field label="Action starts with" name="action" type="text" autocomplete="off" optional value={f.action} onValue={set('action')} />
        <Field label="Member (email)" name="member" type="text" autocomplete="off" optional value={f.member} onValue={set('member')} />
        <label>
          From
          <input type="datetime-local" name="from" value={f.from} onInput={(e) => set('from')(e.currentTarget.value)} />
        </label>
        <label>
          To
          <input type="datetime-local" name="to" value={f.to} onInput={(e) => set('to')(e.currentTarget.value)} />
        </label>
        <button type="submit">Filter</button>
      </form>
      <ErrorLine error={error} />
      {rows?.length === 0 && <p data-testid="audit-empty">No entries match.</p>}
      {rows && rows.length > 0 && (
        <table data-testid="audit">
          <thead>
            <tr>
              <th>When</th>
              <th>Who</th>
              <th>From</th>
              <th>What</th>
              <th>Target</th>
              <th>Details</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id}>
                <td class="num">{new Date(r.at).toLocaleString()}</td>
                <td>{r.actor.label}</td>
                <td>{r.ip ?? '—'}</td>
                <td>
                  <code>{r.action}</code>
                </td>
                <td>{r.target ? `${r.target.type.replace(/_/g, ' ')} #${r.target.id}` : '—'}</td>
                <td class="details">
                  <Details d={r.details} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {next && (
        <div class="actions">
          <button type="button" class="secondary" onClick={() => void load(applied, next)}>
            Older
          </button>
        </div>
      )}
    </>
  );
}
