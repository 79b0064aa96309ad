import { useState } from 'preact/hooks';
import { ApiError, api, errorText } from '../api';
import { CodeField, ErrorLine, Field } from '../fields';

/** Email and password; when the server answers 401 mfa_required, the same form asks for the code too. */
export function SignIn({ notice, onSignedIn }: { notice: string | null; onSignedIn: () => Promise<void> }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [needCode, setNeedCode] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api('POST', '/session', { email, password, ...(needCode ? { code: code.trim() } : {}) });
      await onSignedIn();
    } catch (err) {
      if (err instanceof ApiError && err.code === 'mfa_required') setNeedCode(true);
      else setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="card">
      <h1>Sign in to walletd</h1>
      {notice && <p class="notice">{notice}</p>}
      <form onSubmit={submit}>
        <Field label="Email" name="email" type="email" autocomplete="username" value={email} onValue={setEmail} />
        <Field label="Password" name="password" type="password" autocomplete="current-password" value={password} onValue={setPassword} />
        {needCode && <CodeField label="Authenticator code (or a recovery code)" value={code} onValue={setCode} />}
        <ErrorLine error={error} />
        <button type="submit" disabled={busy}>
          {needCode ? 'Verify and sign in' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
