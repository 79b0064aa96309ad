import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api';
import { ErrorLine } from '../fields';
import type { Delivery, DeliveryDetail } from '../webhooksApi';

const PAGE = 25;

/** What the receiver answered, in a table cell. */
const outcome = (d: Delivery): string => (d.responseCode !== null ? `HTTP ${d.responseCode}` : (d.lastError ?? '—'));

/**
 * The deliveries log of one webhook, newest first, filtered by status and paged by id ("Older"
 * continues after the last row). A row opens to the payload that was posted and the receiver's
 * answer (fetched then: the list leaves them out). Redeliver queues the same event again.
 */
export function WebhookDeliveries({ path }: { path: string }) {
  const [rows, setRows] = useState<Delivery[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [open, setOpen] = useState<Record<number, DeliveryDetail>>({});
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const load = async (before?: string) => {
    setError(null);
    const q = new URLSearchParams({ limit: String(PAGE) });
    if (status) q.set('status', status);
    if (before) q.set('before', before);
    try {
      const r = await api<{ data: Delivery[]; next: string | null }>('GET', `${path}/deliveries?${q}`);
      setRows((prev) => (before && prev ? [...prev, ...r.data] : r.data));
      setNext(r.next);
    } catch (e) {
      setError(errorText(e));
    }
  };
  useEffect(() => {
    setOpen({});
    void load();
  }, [path, status]);

  const toggle = async (d: Delivery) => {
    if (open[d.id]) {
      const { [d.id]: _, ...rest } = open;
      setOpen(rest);
      return;
    }
    try {
      const full = await api<DeliveryDetail>('GET', `${path}/deliveries/${d.id}`);
      setOpen({ ...open, [d.id]: full });
    } catch (e) {
      setError(errorText(e));
    }
  };
  const redeliver = async (d: Delivery) => {
    setError(null);
    try {
      const r = await api<{ delivery: Delivery; created: boolean }>('POST', `${path}/deliveries/${d.id}/redeliver`);
      setNotice(
        r.created
          ? `Queued delivery #${r.delivery.id} of event ${d.eventId}.`
          : `Delivery #${r.delivery.id} of this event is already waiting to be sent.`,
      );
      await load();
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <>
      <h2>Deliveries</h2>
      <div class="actions">
        <label class="check">
          Status
          <select name="status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">all</option>
            <option value="pending">pending</option>
            <option value="delivered">delivered</option>
            <option value="failed">failed</option>
          </select>
        </label>
        <button type="button" class="secondary" onClick={() => void load()}>
          Refresh
        </button>
      </div>
      {notice && (
        <p class="notice" role="status" data-testid="deliveries-notice">
          {notice}
        </p>
      )}
      <ErrorLine error={error} />
      {rows?.length === 0 && <p data-testid="deliveries-empty">No deliveries{status ? ` with status ${status}` : ''}.</p>}
      {rows && rows.length > 0 && (
        <table data-testid="deliveries">
          <thead>
            <tr>
              <th>Delivery</th>
              <th>Event</th>
              <th>Status</th>
              <th>Response</th>
              <th>Attempts</th>
              <th>Last change</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rows.map((d) => (
              <Fragment key={d.id}>
                <tr data-testid={`delivery-${d.id}`}>
                  <td>
                    <button type="button" class="link" aria-expanded={!!open[d.id]} onClick={() => void toggle(d)}>
                      #{d.id}
                    </button>
                  </td>
                  <td>
                    {d.eventType}
                    <br />
                    <code class="small">{d.eventId}</code>
                  </td>
                  <td>
                    <span class={`status ${d.status}`}>{d.status}</span>
                  </td>
                  <td class={d.status === 'delivered' ? undefined : 'error'}>{outcome(d)}</td>
                  <td class="num">{d.attempts}</td>
                  <td>
                    {new Date(d.updatedAt).toLocaleString()}
                    {d.nextAttemptAt && <div class="muted">next try {new Date(d.nextAttemptAt).toLocaleTimeString()}</div>}
                  </td>
                  <td>
                    <button type="button" class="secondary" onClick={() => void redeliver(d)}>
                      Redeliver
                    </button>
                  </td>
                </tr>
                {open[d.id] && (
                  <tr class="expanded">
                    <td colSpan={7}>
                      <p class="muted">Payload posted</p>
                      <pre data-testid="delivery-payload">{JSON.stringify(open[d.id]!.payload, null, 2)}</pre>
                      <p class="muted">Receiver's answer {open[d.id]!.responseCode !== null && `(HTTP ${open[d.id]!.responseCode})`}</p>
                      <pre data-testid="delivery-response">{open[d.id]!.responseBody ?? open[d.id]!.lastError ?? '(none)'}</pre>
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </table>
      )}
      {next && (
        <button type="button" class="secondary" onClick={() => void load(next)}>
          Older
        </button>
      )}
    </>
  );
}
