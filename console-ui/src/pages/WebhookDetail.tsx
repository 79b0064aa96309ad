import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, errorText } from '../api';
import { ErrorLine } from '../fields';
import type { PageProps } from '../routes';
import { navigate } from '../router';
import { destination, health, mayManageWebhooks, parseEvents, type Webhook } from '../webhooksApi';
import { WebhookDeliveries } from './WebhookDeliveries';
import { SecretOnce } from './Webhooks';

const detailError = (e: unknown): string =>
  e instanceof ApiError && e.code === 'not_found' ? 'This webhook does not exist (or belongs to another company).' : errorText(e);

/**
 * One webhook: edit where it points, what it subscribes to and whether it is on; rotate the signing
 * secret (the new one shown once); delete; replay a time window; and its deliveries log.
 */
export function WebhookDetail({ me, params }: PageProps) {
  const id = params[0]!;
  const [hook, setHook] = useState<Webhook | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState('');
  const [enabled, setEnabled] = useState(true);
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const [busy, setBusy] = useState(false);
  const path = `/webhooks/${encodeURIComponent(id)}`;

  const show = (w: Webhook) => {
    setHook(w);
    setUrl(w.config.url ?? '');
    setEvents(w.events.join(', '));
    setEnabled(w.enabled);
  };
  useEffect(() => {
    if (!mayManageWebhooks(me)) {
      setError(`Your role (${me.role}) may not manage webhooks; owners, admins and developers may.`);
      return;
    }
    api<Webhook>('GET', path).then(show, (e) => setError(detailError(e)));
  }, [path]);

  /** Runs one change; its answer or refusal is said on the page. */
  const act = async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      await fn();
    } catch (e) {
      setError(detailError(e));
    } finally {
      setBusy(false);
    }
  };

  const save = (e: Event) => {
    e.preventDefault();
    void act(async () => {
      const body: Record<string, unknown> = { events: parseEvents(events), enabled };
      // The config is replaced whole: send it only when the URL changed (it also closes the breaker).
      if (hook?.type === 'api' && url.trim() !== hook.config.url) body.config = { url: url.trim() };
      show(await api<Webhook>('PATCH', path, body));
      setNotice('Saved.');
    });
  };
  const rotate = () =>
    act(async () => {
      setSecret((await api<{ signingSecret: string }>('POST', `${path}/rotate-secret`)).signingSecret);
    });
  const remove = () =>
    act(async () => {
      if (!confirm(`Delete webhook #${id}? Deliveries still waiting end failed.`)) return;
      await api('DELETE', path);
      navigate('/console/webhooks');
    });
  const replay = (e: Event) => {
    e.preventDefault();
    void act(async () => {
      const body: Record<string, string> = { since: new Date(since).toISOString() };
      if (until) body.until = new Date(until).toISOString();
      const out = await api<{ queued: number; hasMore: boolean }>('POST', `${path}/replay`, body);
      setNotice(`Replay queued ${out.queued} event${out.queued === 1 ? '' : 's'}${out.hasMore ? '; more remain, replay again' : ''}.`);
    });
  };

  const back = (e: Event) => {
    e.preventDefault();
    navigate('/console/webhooks');
  };
  return (
    <>
      <p>
        <a href="/console/webhooks" onClick={back}>
          ← All webhooks
        </a>
      </p>
      {!hook ? (
        error ? (
          <ErrorLine error={error} />
        ) : (
          <p>Loading…</p>
        )
      ) : (
        <>
          <h1>
            Webhook #{hook.id}{' '}
            <span class={`status ${hook.enabled ? 'approved' : 'rejected'}`}>{hook.enabled ? 'enabled' : 'disabled'}</span>
          </h1>
          <dl class="facts" data-testid="webhook-facts">
            <dt>Destination</dt>
            <dd>
              <code>{destination(hook)}</code>
            </dd>
            <dt>Events</dt>
            <dd>{hook.events.join(', ')}</dd>
            <dt>Delivery</dt>
            <dd data-testid="webhook-health" class={hook.delivery.consecutiveFailures > 0 ? 'error' : undefined}>
              {health(hook)}
            </dd>
          </dl>
          {notice && (
            <p class="notice" role="status" data-testid="webhook-notice">
              {notice}
            </p>
          )}
          {secret && <SecretOnce secret={secret} what="Signing secret rotated." />}
          <ErrorLine error={error} />
          <h2>Edit</h2>
          <form class="inline-form" onSubmit={save}>
            {hook.type === 'api' && (
              <label>
                URL
                <input name="url" type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
              </label>
            )}
            <label>
              Events (comma-separated; * for all)
              <input name="events" required value={events} onInput={(e) => setEvents(e.currentTarget.value)} />
            </label>
            <label class="check">
              <input type="checkbox" name="enabled" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
              Enabled
            </label>
            <div class="actions">
              <button type="submit" disabled={busy}>
                Save
              </button>
              <button type="button" class="secondary" disabled={busy} onClick={() => void rotate()}>
                Rotate signing secret
              </button>
              <button type="button" class="danger" disabled={busy} onClick={() => void remove()}>
                Delete
              </button>
            </div>
          </form>
          <h2>Replay</h2>
          <form class="inline-form" onSubmit={replay}>
            <p class="muted">Sends again the events of a time window that this webhook subscribes to (same event ids and bytes).</p>
            <label>
              From
              <input name="since" type="datetime-local" required value={since} onInput={(e) => setSince(e.currentTarget.value)} />
            </label>
            <label>
              To (empty: now)
              <input name="until" type="datetime-local" value={until} onInput={(e) => setUntil(e.currentTarget.value)} />
            </label>
            <div class="actions">
              <button type="submit" disabled={busy}>
                Replay window
              </button>
            </div>
          </form>
          <WebhookDeliveries path={path} />
        </>
      )}
    </>
  );
}
