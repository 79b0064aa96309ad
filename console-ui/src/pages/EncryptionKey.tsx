import type { ConsoleEncryptionKey } from '@walletd/schemas';
import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api';
import { ErrorLine } from '../fields';
import type { PageProps } from '../routes';
import { StepUpForm, useStepUp } from '../stepUp';

type KeyStatus = ConsoleEncryptionKey;

/**
 * The company's encryption key: the X25519 public key wallet secrets are sealed to on export.
 * Everyone sees its fingerprint to compare with their copy; an owner pastes a new public key
 * (the server refuses a private key in words and asks for a step-up).
 */
export function EncryptionKey({ me }: PageProps) {
  const [status, setStatus] = useState<KeyStatus | null>(null);
  const [pem, setPem] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const step = useStepUp(setError);

  useEffect(() => {
    api<KeyStatus>('GET', '/encryption-key')
      .then(setStatus)
      .catch((e) => setError(errorText(e)));
  }, []);

  const save = () =>
    step.run('set the encryption key', async () => {
      const out = await api<KeyStatus>('PUT', '/encryption-key', { publicKeyPem: pem });
      setStatus(out);
      setPem('');
      setNotice('Encryption key set. Secrets exported from now on are sealed to it.');
    });

  return (
    <>
      <h1>Encryption key</h1>
      <p class="muted">
        Wallet secrets leave walletd only sealed to this X25519 public key; the private half stays with you. Create a pair offline with{' '}
        <code>walletd secret keygen</code>. Check a key file's fingerprint with{' '}
        <code>openssl pkey -pubin -in company.pub -outform DER | sha256sum</code>.
      </p>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <ErrorLine error={error} />
      {status && !status.set && <p data-testid="no-key">No key is set: wallet secrets cannot be exported until an owner sets one.</p>}
      {status?.set && (
        <dl class="facts" data-testid="key-facts">
          <dt>Fingerprint (SHA-256)</dt>
          <dd>
            <code data-testid="fingerprint">{status.fingerprint}</code>
          </dd>
          <dt>Set</dt>
          <dd data-testid="key-set">
            {status.setAt ? new Date(status.setAt).toLocaleString() : 'unknown'} by{' '}
            {status.setBy?.email ?? 'an operator (before the console)'}
          </dd>
        </dl>
      )}
      {me.role === 'owner' ? (
        <form
          class="key-form"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <h2>{status?.set ? 'Replace the key' : 'Set the key'}</h2>
          <label>
            Public key (PEM)
            <textarea
              name="publicKeyPem"
              rows={5}
              required
              spellcheck={false}
              placeholder="-----BEGIN PUBLIC KEY-----"
              value={pem}
              onInput={(e) => setPem(e.currentTarget.value)}
            />
          </label>
          {!step.pending && (
            <div class="actions">
              <button type="submit" disabled={step.busy}>
                Set encryption key
              </button>
            </div>
          )}
        </form>
      ) : (
        <p class="muted">Only owners can set or replace the key. Your role is {me.role}.</p>
      )}
      <StepUpForm step={step} />
    </>
  );
}
