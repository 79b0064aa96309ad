import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api';
import { ErrorLine } from '../fields';
import type { PageProps } from '../routes';
import { navigate } from '../router';
import { destination, health, mayManageWebhooks, parseEvents, type Webhook } from '../webhooksApi';

/** The signing secret, shown once after it was made: the server never answers it again. */
export function SecretOnce({ secret, what }: { secret: string; what: string }) {
  return (
    <div class="notice" role="status" data-testid="signing-secret">
      <p>{what} Copy the signing secret now: it is shown this once. Receivers verify each delivery's signature with it.</p>
      <code class="secret">{secret}</code>
    </div>
  );
}

/**
 * The company's webhooks (where events go, and whether the endpoint is answering) and a form for a
 * new one. Managing webhooks needs `webhooks:manage` (owner, admin, developer); a viewer is told so
 * and sees nothing else, as the server answers 403 to every webhook request of theirs.
 */
export function Webhooks({ me }: PageProps) {
  const [rows, setRows] = useState<Webhook[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState('*');
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<{ id: number; secret: string } | null>(null);
  const allowed = mayManageWebhooks(me);

  const load = () =>
    api<{ data: Webhook[] }>('GET', '/webhooks')
      .then((r) => setRows(r.data))
      .catch((e) => setError(errorText(e)));
  useEffect(() => {
    if (allowed) void load();
  }, [allowed]);

  const create = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const out = await api<{ webhook: Webhook; signingSecret: string }>('POST', '/webhooks', {
        type: 'api',
        config: { url: url.trim() },
        events: parseEvents(events),
      });
      setCreated({ id: out.webhook.id, secret: out.signingSecret });
      setUrl('');
      await load();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  const open = (id: number) => (e: Event) => {
    e.preventDefault();
    navigate(`/console/webhooks/${id}`);
  };

  if (!allowed) {
    return (
      <>
        <h1>Webhooks</h1>
        <p data-testid="webhooks-refused">Your role ({me.role}) may not manage webhooks; owners, admins and developers may.</p>
      </>
    );
  }
  return (
    <>
      <h1>Webhooks</h1>
      <p class="muted">Each event the company's wallets produce is posted, signed, to the webhooks that subscribe to it.</p>
      <ErrorLine error={error} />
      {created && (
        <>
          <SecretOnce secret={created.secret} what={`Webhook #${created.id} created.`} />
          <p>
            <a href={`/console/webhooks/${created.id}`} onClick={open(created.id)}>
              Open webhook #{created.id}
            </a>
          </p>
        </>
      )}
      {rows === null && !error && <p>Loading…</p>}
      {rows?.length === 0 && <p data-testid="webhooks-empty">No webhooks yet.</p>}
      {rows && rows.length > 0 && (
        <table data-testid="webhooks">
          <thead>
            <tr>
              <th>Webhook</th>
              <th>Destination</th>
              <th>Events</th>
              <th>Enabled</th>
              <th>Delivery</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((w) => (
              <tr key={w.id}>
                <td>
                  <a href={`/console/webhooks/${w.id}`} onClick={open(w.id)}>
                    #{w.id}
                  </a>
                </td>
                <td>
                  <code>{destination(w)}</code>
                </td>
                <td>{w.events.join(', ')}</td>
                <td>{w.enabled ? 'yes' : 'no'}</td>
                <td class={w.delivery.consecutiveFailures > 0 ? 'error' : undefined}>{health(w)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>New webhook</h2>
      <form class="inline-form" onSubmit={(e) => void create(e)}>
        <label>
          URL
          <input
            name="url"
            type="url"
            required
            placeholder="https://example.com/walletd"
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
        </label>
        <label>
          Events (comma-separated; * for all)
          <input name="events" required value={events} onInput={(e) => setEvents(e.currentTarget.value)} />
        </label>
        <div class="actions">
          <button type="submit" disabled={busy}>
            Create webhook
          </button>
        </div>
      </form>
    </>
  );
}
