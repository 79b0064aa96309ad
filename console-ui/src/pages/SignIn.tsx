import { useState } from 'preact/hooks';
import { ApiError, api, errorText } from '../api';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { CodeField, ErrorLine, Field } from '../fields';
import { signInAssertion } from '../passkeys';

/**
 * Email and password; when the server answers 401 mfa_required, the same form asks for the code
 * too, and offers the member's passkey when that answer carries a passkey challenge.
 */
export function SignIn({ notice, onSignedIn }: { notice: string | null; onSignedIn: () => Promise<void> }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [needCode, setNeedCode] = useState(false);
  const [passkeyOptions, setPasskeyOptions] = useState<PublicKeyCredentialRequestOptionsJSON | null>(null);
  const [hasPasskey, setHasPasskey] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const send = async (second: () => Promise<{ code: string } | { passkey: unknown } | object>) => {
    setBusy(true);
    setError(null);
    try {
      await api('POST', '/session', { email, password, ...(await second()) });
      await onSignedIn();
    } catch (err) {
      if (err instanceof ApiError && err.code === 'mfa_required') {
        setNeedCode(true);
        const options = (err.body.passkeyOptions as PublicKeyCredentialRequestOptionsJSON | undefined) ?? null;
        setPasskeyOptions(options);
        if (options) setHasPasskey(true);
      } else setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const submit = (e: Event) => {
    e.preventDefault();
    void send(async () => (needCode ? { code: code.trim() } : {}));
  };
  // A challenge is used once: after a failed attempt the first step (no second factor) asks for a new one.
  const withPasskey = () =>
    void send(async () => {
      const options = passkeyOptions;
      setPasskeyOptions(null);
      return options ? { passkey: await signInAssertion(options) } : {};
    });

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
        {hasPasskey && (
          <button type="button" disabled={busy} onClick={withPasskey}>
            Sign in with a passkey
          </button>
        )}
      </form>
    </main>
  );
}
