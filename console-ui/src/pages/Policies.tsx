import { useEffect, useState } from 'preact/hooks';
import { api, errorText, type Policy } from '../api';
import { ErrorLine } from '../fields';
import type { PageProps } from '../routes';
import { StepUpForm, useStepUp } from '../stepUp';
import { ApprovalDefault } from './ApprovalDefault';
import { PolicyForm } from './PolicyForm';

export const manages = (role: string) => role === 'owner' || role === 'admin';

/**
 * Spending policies: each rule in words, enabled or not; owners and admins create, edit, enable and
 * disable them (the server checks the role and asks for a step-up; other roles see why not).
 */
export function Policies({ me }: PageProps) {
  const [rows, setRows] = useState<Policy[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [editing, setEditing] = useState<Policy | 'new' | null>(null);
  const step = useStepUp(setError);

  const load = () =>
    api<{ data: Policy[] }>('GET', '/policies')
      .then((r) => setRows(r.data))
      .catch((e) => setError(errorText(e)));
  useEffect(() => {
    if (manages(me.role)) void load();
  }, []);

  if (!manages(me.role)) {
    return (
      <>
        <h1>Spending policies</h1>
        <p>Only owners and admins see and change spending policies. Your role is {me.role}.</p>
      </>
    );
  }
  const saved = (what: string) => (p: Policy) => {
    setEditing(null);
    setNotice(`${what}: ${p.sentence}.`);
    void load();
  };
  const toggle = (p: Policy) =>
    step.run(`${p.enabled ? 'disable' : 'enable'} policy "${p.name}"`, async () => {
      const out = await api<Policy>('POST', `/policies/${p.id}/${p.enabled ? 'disable' : 'enable'}`);
      saved(out.enabled ? 'Enabled' : 'Disabled')(out);
    });

  return (
    <>
      <h1>Spending policies</h1>
      <p class="muted">
        Checked on every withdrawal in this order: destinations denied, destinations not allow-listed, destinations not (yet) usable in the
        address book, per-withdrawal maximum, 24-hour maximum, then approvals. A refusal names the policy.
      </p>
      {notice && (
        <p class="notice" role="status" data-testid="policy-notice">
          {notice}
        </p>
      )}
      <ErrorLine error={error} />
      <ApprovalDefault me={me} />
      {rows === null && !error && <p>Loading…</p>}
      {rows?.length === 0 && (
        <p data-testid="policies-empty">No spending policies yet: withdrawals are limited only by the API keys' rights.</p>
      )}
      {rows && rows.length > 0 && (
        <table data-testid="policies">
          <thead>
            <tr>
              <th>Policy</th>
              <th>Rule</th>
              <th>Status</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rows.map((p) => (
              <tr key={p.id} data-testid={`policy-${p.id}`}>
                <td>
                  #{p.id} {p.name}
                </td>
                <td data-testid="sentence">{p.sentence}</td>
                <td>{p.enabled ? 'enabled' : 'disabled'}</td>
                <td class="row-actions">
                  <button type="button" class="secondary" disabled={step.busy} onClick={() => setEditing(p)}>
                    Edit
                  </button>
                  <button type="button" class="secondary" disabled={step.busy} onClick={() => void toggle(p)}>
                    {p.enabled ? 'Disable' : 'Enable'}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {editing === null && (
        <div class="actions">
          <button type="button" onClick={() => setEditing('new')}>
            New policy
          </button>
        </div>
      )}
      {editing !== null && (
        <PolicyForm
          key={editing === 'new' ? 'new' : editing.id}
          policy={editing === 'new' ? null : editing}
          step={step}
          onSaved={saved(editing === 'new' ? 'Created' : 'Saved')}
          onCancel={() => setEditing(null)}
        />
      )}
      <StepUpForm step={step} />
    </>
  );
}
