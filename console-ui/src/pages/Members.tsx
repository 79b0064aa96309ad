import { useEffect, useState } from 'preact/hooks';
import { ApiError, type ConsoleMember, type MemberLink, api, errorText } from '../api';
import { ErrorLine } from '../fields';
import type { PageProps } from '../routes';
import { InviteForm, OneTimeLink, grantableRoles } from './MemberInvite';
import { type HeldAction, StepUpPrompt, needsStepUp } from './StepUpPrompt';

/** The server's refusals in words; anything else keeps the server's message. */
function memberErrorText(e: unknown): string {
  if (!(e instanceof ApiError)) return errorText(e);
  if (e.code === 'role_insufficient') return `${e.message}.`;
  if (e.code === 'not_found') return 'This member no longer exists (or belongs to another company).';
  return e.message;
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');

/**
 * Members and roles. Everyone sees the table; owners and admins see the controls, and only for the
 * members they may touch (an admin never an owner, nobody their own role). The server checks all
 * of it again: a member demoted while the page was open is refused there.
 */
export function Members({ me }: PageProps) {
  const [rows, setRows] = useState<ConsoleMember[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [link, setLink] = useState<MemberLink | null>(null);
  const [held, setHeld] = useState<HeldAction | null>(null);
  const [removing, setRemoving] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);

  const load = () =>
    api<{ data: ConsoleMember[] }>('GET', '/members')
      .then((r) => setRows(r.data))
      .catch((e) => setError(memberErrorText(e)));
  useEffect(() => {
    void load();
  }, []);

  /** Runs an action; when the server asks for a step-up, holds it behind the code prompt. */
  const perform = async (what: string, action: () => Promise<void>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      await action();
      setHeld(null);
      await load();
      return true;
    } catch (e) {
      if (needsStepUp(e)) setHeld({ what, run: async () => void (await perform(what, action)) });
      else {
        setHeld(null);
        setError(memberErrorText(e));
      }
      return false;
    } finally {
      setBusy(false);
    }
  };

  const manager = me.role === 'owner' || me.role === 'admin';
  const mayTouch = (m: ConsoleMember) => manager && (m.role !== 'owner' || me.role === 'owner');
  const invite = (email: string, role: string) =>
    perform(`invite ${email}`, async () => setLink(await api<MemberLink>('POST', '/members', { email, role })));
  const changeRole = (m: ConsoleMember, role: string) =>
    perform(`make ${m.email} ${role}`, async () => {
      await api('PATCH', `/members/${m.id}`, { role });
      setNotice(`${m.email} is now ${role}.`);
    });
  const resetLink = (m: ConsoleMember) =>
    perform(`issue a reset link for ${m.email}`, async () => setLink(await api<MemberLink>('POST', `/members/${m.id}/reset-link`)));
  const confirmApprover = (m: ConsoleMember) =>
    perform(`confirm ${m.email} as an approver`, async () => {
      await api('POST', `/members/${m.id}/confirm-approver`);
      setNotice(`${m.email}'s approvals count from now on.`);
    });
  const remove = (m: ConsoleMember) =>
    perform(`remove ${m.email}`, async () => {
      setRemoving(null);
      await api('DELETE', `/members/${m.id}`);
      // Leaving the company ends one's own session too.
      if (m.id === me.memberId) window.location.assign('/console/sign-in');
      setNotice(`${m.email} was removed; their sessions ended.`);
    });

  return (
    <>
      <h1>Members</h1>
      <p class="muted">People who sign in to this console. Owners and admins invite, change roles and remove; only owners manage owners.</p>
      {manager && (
        <InviteForm
          key={link?.url ?? link?.mailedTo ?? ''}
          myRole={me.role}
          busy={busy}
          onInvite={(email, role) => void invite(email, role)}
        />
      )}
      {link && <OneTimeLink link={link} onDone={() => setLink(null)} />}
      {held && <StepUpPrompt held={held} onCancel={() => setHeld(null)} onError={setError} />}
      {notice && (
        <p class="notice" role="status" data-testid="members-notice">
          {notice}
        </p>
      )}
      <ErrorLine error={error} />
      {rows === null && !error && <p>Loading…</p>}
      {rows && (
        <table data-testid="members">
          <thead>
            <tr>
              <th>Email</th>
              <th>Role</th>
              <th>MFA</th>
              <th>Status</th>
              <th>Last sign-in</th>
              {manager && <th>Actions</th>}
            </tr>
          </thead>
          <tbody>
            {rows.map((m) => (
              <tr key={m.id} data-member={m.email}>
                <td>
                  {m.email}
                  {m.id === me.memberId && <span class="muted"> (you)</span>}
                </td>
                <td>
                  {mayTouch(m) && m.id !== me.memberId ? (
                    <select
                      aria-label={`Role of ${m.email}`}
                      value={m.role}
                      disabled={busy}
                      onChange={(e) => void changeRole(m, e.currentTarget.value)}
                    >
                      {grantableRoles(me.role).map((r) => (
                        <option key={r} value={r}>
                          {r}
                        </option>
                      ))}
                    </select>
                  ) : (
                    m.role
                  )}
                </td>
                <td>{m.mfaEnrolled ? 'enrolled' : 'not enrolled'}</td>
                <td>
                  {m.invitationPending ? 'invited' : 'active'}
                  {m.approverCoolingOffUntil && (
                    <span class="muted" data-testid="cooling-off">
                      {' '}
                      · new approver: approvals count from {when(m.approverCoolingOffUntil)}
                    </span>
                  )}
                </td>
                <td>{when(m.lastSignInAt)}</td>
                {manager && (
                  <td>
                    <div class="row-actions">
                      {mayTouch(m) && removing !== m.id && (
                        <>
                          {me.role === 'owner' && m.approverCoolingOffUntil && m.id !== me.memberId && (
                            <button type="button" class="secondary" disabled={busy} onClick={() => void confirmApprover(m)}>
                              Confirm as approver
                            </button>
                          )}
                          {m.id !== me.memberId && (
                            <button type="button" class="secondary" disabled={busy} onClick={() => void resetLink(m)}>
                              {m.invitationPending ? 'New invitation link' : 'Reset link'}
                            </button>
                          )}
                          <button type="button" class="danger" disabled={busy} onClick={() => setRemoving(m.id)}>
                            Remove
                          </button>
                        </>
                      )}
                      {removing === m.id && (
                        <>
                          <span>Remove {m.id === me.memberId ? 'yourself' : m.email}?</span>
                          <button type="button" class="danger" disabled={busy} onClick={() => void remove(m)}>
                            Confirm removal
                          </button>
                          <button type="button" class="secondary" onClick={() => setRemoving(null)}>
                            Cancel
                          </button>
                        </>
                      )}
                    </div>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
