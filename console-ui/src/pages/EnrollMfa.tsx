import type { ConsoleMfaEnrollment } from '@walletd/schemas';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, errorText, type Me } from '../api';
import { CodeField, ErrorLine } from '../fields';
import { enrollPasskey } from '../passkeys';

type Enrollment = ConsoleMfaEnrollment;

/** The server's SVG QR code, parsed as SVG (not HTML) and put in place: nothing runs, nothing is fetched. */
function QrCode({ svg, uri }: { svg: string; uri: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
    box.current?.replaceChildren(document.importNode(doc.documentElement, true));
  }, [svg]);
  return <div class="qr" ref={box} data-testid="totp-qr" data-otpauth={uri} role="img" aria-label="QR code of the authenticator key" />;
}

/**
 * TOTP enrollment: a QR code of the otpauth:// URI for the app's camera, the secret as text for
 * typing in, a first code confirms it, and the recovery codes are shown this once.
 */
export function EnrollMfa({ me, onDone }: { me: Me; onDone: () => Promise<void> }) {
  const [secret, setSecret] = useState<Enrollment | null>(null);
  const [code, setCode] = useState('');
  const [recovery, setRecovery] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);

  useEffect(() => {
    // A second enroll call would replace the secret the member is typing in.
    if (started.current) return;
    started.current = true;
    api<Enrollment>('POST', '/mfa/enroll')
      .then(setSecret)
      .catch((e) => setError(errorText(e)));
  }, []);

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      setRecovery((await api<{ recoveryCodes: string[] }>('POST', '/mfa/verify', { code: code.trim() })).recoveryCodes);
    } catch (err) {
      setError(errorText(err));
    }
  };

  // A member with no second factor yet may make a passkey their first one instead of the app.
  const usePasskey = async () => {
    setError(null);
    try {
      await enrollPasskey('first passkey');
      await onDone();
    } catch (err) {
      setError(errorText(err));
    }
  };

  if (recovery) {
    return (
      <main class="card">
        <h1>Recovery codes</h1>
        <p>Each code signs you in once if you lose your authenticator. They are shown only now: store them somewhere safe.</p>
        <ul class="codes" data-testid="recovery-codes">
          {recovery.map((c) => (
            <li key={c}>
              <code>{c}</code>
            </li>
          ))}
        </ul>
        <button type="button" onClick={() => void onDone()}>
          I have stored them
        </button>
      </main>
    );
  }
  return (
    <main class="card">
      <h1>Set up your authenticator</h1>
      <p>
        {me.role === 'owner' || me.role === 'admin'
          ? `As ${me.role}, you need an authenticator app (TOTP) before you can do anything else.`
          : 'An authenticator app (TOTP) protects your account with a second factor.'}
      </p>
      {secret && (
        <>
          <p>Scan this code with your authenticator app:</p>
          <QrCode svg={secret.qrSvg} uri={secret.otpauthUri} />
          <p>Or type this key in (time-based, 6 digits, 30 seconds):</p>
          <p>
            <code class="secret" data-testid="totp-secret">
              {secret.secret}
            </code>
          </p>
          <details>
            <summary>otpauth URI</summary>
            <code class="uri">{secret.otpauthUri}</code>
          </details>
          <form onSubmit={submit}>
            <CodeField label="Code from the app" value={code} onValue={setCode} />
            <button type="submit">Confirm</button>
          </form>
        </>
      )}
      {me.passkeys === 0 && !me.mfaEnrolled && (
        <>
          <p>Or use a passkey instead: a security key, or this device's fingerprint or face unlock.</p>
          <button type="button" class="secondary" onClick={() => void usePasskey()}>
            Use a passkey instead
          </button>
        </>
      )}
      <ErrorLine error={error} />
    </main>
  );
}
