import { useState } from 'preact/hooks';
import { api, errorText } from '../api';
import { ErrorLine, Field } from '../fields';

const MIN_PASSWORD = 12;

/** An invitation or password-reset link: the token in the path sets the member's password once. */
export function AcceptLink({ token, onDone }: { token: string; onDone: () => void }) {
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (password !== confirm) return setError('The two passwords differ.');
    if (password.length < MIN_PASSWORD) return setError(`Use at least ${MIN_PASSWORD} characters.`);
    setBusy(true);
    setError(null);
    try {
      await api('POST', `/links/${encodeURIComponent(token)}`, { password });
      onDone();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="card">
      <h1>Set your password</h1>
      <p>This link works once. Choose a password of at least {MIN_PASSWORD} characters; a passphrase is best.</p>
      <form onSubmit={submit}>
        <Field label="New password" name="password" type="password" autocomplete="new-password" value={password} onValue={setPassword} />
        <Field label="Repeat it" name="confirm" type="password" autocomplete="new-password" value={confirm} onValue={setConfirm} />
        <ErrorLine error={error} />
        <button type="submit" disabled={busy}>
          Set password
        </button>
      </form>
    </main>
  );
}
