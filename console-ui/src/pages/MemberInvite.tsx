import { useState } from 'preact/hooks';
import type { MemberLink } from '../api';
import { Field } from '../fields';

/** The roles a member may hand out: only an owner makes owners (the server checks the same). */
export const grantableRoles = (myRole: string): string[] =>
  myRole === 'owner' ? ['owner', 'admin', 'developer', 'viewer'] : ['admin', 'developer', 'viewer'];

/**
 * Email and role; the page sends it (with a step-up when asked) and shows the link once. The page
 * remounts the form when a link arrives, which clears it.
 */
export function InviteForm(props: { myRole: string; busy: boolean; onInvite: (email: string, role: string) => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('developer');
  return (
    <form
      class="invite"
      onSubmit={(e) => {
        e.preventDefault();
        props.onInvite(email.trim(), role);
      }}
    >
      <div class="field">
        <Field label="Email" name="email" type="email" autocomplete="off" value={email} onValue={setEmail} />
      </div>
      {/* Labelled by id, not by nesting: a nested select's options would become part of its name. */}
      <div class="field">
        <label for="invite-role">Role</label>
        <select id="invite-role" name="role" value={role} onChange={(e) => setRole(e.currentTarget.value)}>
          {grantableRoles(props.myRole).map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" disabled={props.busy}>
        Invite
      </button>
    </form>
  );
}

/**
 * The one-time link: mailed to the member when a mail transport is configured (then only the
 * address is shown), else shown only now with the server's warning, for the inviter to hand over.
 */
export function OneTimeLink(props: { link: MemberLink; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const { link } = props;
  const kind = link.purpose === 'invitation' ? 'invitation' : 'password reset';
  if (link.mailedTo || !link.url)
    return (
      <div class="notice one-time" role="status" data-testid="one-time-link">
        <p>
          The one-time {kind} link was mailed to <strong>{link.mailedTo}</strong>. It works once and expires{' '}
          {new Date(link.expiresAt).toLocaleString()}.
        </p>
        <button type="button" class="secondary" onClick={props.onDone}>
          Done
        </button>
      </div>
    );
  const url = link.url;
  return (
    <div class="notice one-time" role="status" data-testid="one-time-link">
      <p>
        One-time {kind} link for <strong>{link.member.email}</strong>. It is shown only now, works once and expires{' '}
        {new Date(link.expiresAt).toLocaleString()}. Hand it to them yourself.
      </p>
      {link.warning && (
        <p class="error" data-testid="no-mail-warning">
          Warning: {link.warning}.
        </p>
      )}
      <input readOnly aria-label="One-time link" value={url} onFocus={(e) => e.currentTarget.select()} />
      <div class="actions">
        <button
          type="button"
          onClick={() =>
            void navigator.clipboard
              ?.writeText(url)
              .then(() => setCopied(true))
              .catch(() => undefined)
          }
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" class="secondary" onClick={props.onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
