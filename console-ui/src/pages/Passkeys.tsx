import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api';
import { ErrorLine, Field } from '../fields';
import { type Passkey, enrollPasskey } from '../passkeys';
import type { PageProps } from '../routes';
import { StepUpForm, useStepUp } from '../stepUp';

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');

/**
 * The member's passkeys: add one (the browser asks the authenticator; a step-up first when the
 * member already has a second factor), see when each was last used, remove one (step-up; the
 * server keeps the last second factor).
 */
export function Passkeys(_props: PageProps) {
  const [keys, setKeys] = useState<Passkey[] | null>(null);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const step = useStepUp(setError);

  const load = () =>
    api<{ items: Passkey[] }>('GET', '/passkeys')
      .then((r) => setKeys(r.items))
      .catch((e) => setError(errorText(e)));
  useEffect(() => {
    void load();
  }, []);

  const add = (e: Event) => {
    e.preventDefault();
    void step.run('add a passkey', async () => {
      const key = await enrollPasskey(name.trim());
      setName('');
      setNotice(`Passkey "${key.name}" added: use it to sign in and to confirm actions.`);
      await load();
    });
  };
  const remove = (k: Passkey) =>
    step.run(`remove passkey "${k.name}"`, async () => {
      await api('DELETE', `/passkeys/${k.id}`);
      setNotice(`Passkey "${k.name}" removed.`);
      await load();
    });

  return (
    <>
      <h1>Passkeys</h1>
      <p class="muted">
        A passkey (a security key, or your device's fingerprint or face unlock) is a second factor: it signs you in after your password and
        confirms approvals, instead of an authenticator code.
      </p>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <ErrorLine error={error} />
      {keys && keys.length === 0 && <p data-testid="no-passkeys">No passkey yet.</p>}
      {keys && keys.length > 0 && (
        <table data-testid="passkeys">
          <thead>
            <tr>
              <th>Name</th>
              <th>Added</th>
              <th>Last used</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td>{when(k.createdAt)}</td>
                <td>{when(k.lastUsedAt)}</td>
                <td>
                  <button type="button" class="danger" disabled={step.busy} onClick={() => void remove(k)}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form class="passkey-add" onSubmit={add}>
        <Field label="Passkey name" name="passkey-name" type="text" autocomplete="off" value={name} onValue={setName} />
        <button type="submit" disabled={step.busy}>
          Add a passkey
        </button>
      </form>
      <StepUpForm step={step} passkey={(keys?.length ?? 0) > 0} />
    </>
  );
}
