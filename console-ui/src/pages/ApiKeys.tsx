import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, errorText } from '../api';
import { ErrorLine } from '../fields';
import { type ApiKey, type CreatedKey, KEY_STATUS_LABELS, type KeyList, when } from '../keys';
import type { PageProps } from '../routes';
import { NewKeyForm } from './NewKeyForm';

/** The secret of the key just created, shown this once: the server keeps only its hash. */
function SecretOnce({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = () =>
    navigator.clipboard?.writeText(created.key).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  return (
    <section class="secret-once" data-testid="new-key">
      <h2>Key #{created.record.id} created</h2>
      <p>
        <strong>Copy this key now: it will not be shown again.</strong> walletd stores only a hash of it; if it is lost, revoke it and
        create another.
      </p>
      <code class="secret" data-testid="new-key-secret">
        {created.key}
      </code>
      <p class="muted">Select it and copy (Ctrl+C / ⌘C), or use the button. Send it to the API as “Authorization: Bearer …”.</p>
      <div class="actions">
        <button type="button" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy key'}
        </button>
        <button type="button" class="secondary" onClick={onDone}>
          I have stored it
        </button>
      </div>
    </section>
  );
}

const scope = (k: ApiKey) => (k.walletIds === '*' ? 'every wallet' : k.walletIds.map((id) => `#${id}`).join(', '));

/**
 * The company's API keys: what each may do, where from and until when, who made it, when it was
 * last used; creating one (with a step-up, the secret shown once) and revoking one (effective on
 * the API's next request). A viewer sees the list only; the server refuses the rest too.
 */
export function ApiKeys({ me }: PageProps) {
  const [list, setList] = useState<KeyList | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [confirming, setConfirming] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);

  const load = () =>
    api<KeyList>('GET', '/keys')
      .then(setList)
      .catch((e) => setError(errorText(e)));
  useEffect(() => void load(), []);

  const revoke = async (id: number) => {
    setBusy(true);
    setError(null);
    try {
      await api<ApiKey>('POST', `/keys/${id}/revoke`);
      setConfirming(null);
      await load();
    } catch (e) {
      setError(e instanceof ApiError && e.code === 'role_insufficient' ? `${e.message}.` : errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <h1>API keys</h1>
      <p class="muted">
        Keys let programs call the walletd API. Each acts for the member who created it and can never do more than that member's role
        allows.
      </p>
      <ErrorLine error={error} />
      {created && (
        <SecretOnce
          created={created}
          onDone={() => {
            setCreated(null);
            void load();
          }}
        />
      )}
      {list && !created && !creating && list.mayCreate && (
        <p>
          <button type="button" onClick={() => setCreating(true)}>
            Create API key
          </button>
        </p>
      )}
      {list && !list.mayCreate && <p class="muted">Your role ({me.role}) may not create API keys.</p>}
      {list && creating && (
        <NewKeyForm
          actions={list.actions}
          onCreated={(c) => {
            setCreating(false);
            setCreated(c);
            void load();
          }}
          onCancel={() => setCreating(false)}
        />
      )}
      {list === null && !error && <p>Loading…</p>}
      {list?.data.length === 0 && <p data-testid="keys-empty">No API keys yet.</p>}
      {list && list.data.length > 0 && (
        <table data-testid="keys">
          <thead>
            <tr>
              <th>Key</th>
              <th>Actions</th>
              <th>Wallets</th>
              <th>IP lock</th>
              <th>Expires</th>
              <th>Created by</th>
              <th>Last used</th>
              <th>Status</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((k) => (
              <tr key={k.id} data-key-id={k.id}>
                <td>
                  {k.name ?? <span class="muted">no name</span>}
                  <br />
                  <code class="hint">
                    #{k.id} {k.hint}
                  </code>
                </td>
                <td class="key-actions">{k.actions.length === list.actions.length ? 'every action' : k.actions.join(', ')}</td>
                <td>{scope(k)}</td>
                <td>{k.allowIps?.join(', ') ?? 'any address'}</td>
                <td>{k.expiresAt ? new Date(k.expiresAt).toLocaleDateString() : 'never'}</td>
                <td>{k.createdByEmail ?? (k.createdBy === null ? 'operator' : `member #${k.createdBy}`)}</td>
                <td>{when(k.lastUsedAt, 'not yet')}</td>
                <td>
                  <div class="key-status">
                    <span class={`status ${k.status}`}>{KEY_STATUS_LABELS[k.status]}</span>
                    {k.canRevoke && k.status !== 'revoked' && confirming !== k.id && (
                      <button type="button" class="danger small" disabled={busy} onClick={() => setConfirming(k.id)}>
                        Revoke
                      </button>
                    )}
                    {confirming === k.id && (
                      <span class="confirm">
                        Programs using it stop at once.
                        <button type="button" class="danger small" disabled={busy} onClick={() => void revoke(k.id)}>
                          Confirm revoke
                        </button>
                        <button type="button" class="secondary small" onClick={() => setConfirming(null)}>
                          Keep
                        </button>
                      </span>
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
