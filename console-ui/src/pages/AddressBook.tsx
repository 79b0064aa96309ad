import type { ConsoleAddressBookEntry } from '@walletd/schemas';
import { useEffect, useState } from 'preact/hooks';
import { api, errorText, type Me, mayMoveFunds, when } from '../api';
import { ErrorLine, Field } from '../fields';
import type { PageProps } from '../routes';
import { StepUpForm, useStepUp } from '../stepUp';

type Entry = ConsoleAddressBookEntry;

const hours = (ms: number) => `${Math.round(ms / 3_600_000)} h`;

/** What the entry's state means for a payment to it, in words. */
function stateText(e: Entry): string {
  if (e.status === 'usable') return e.shortenedBy !== null ? 'cooling-off ended early by two members' : 'can receive';
  const asked = e.shortenRequestedBy !== null ? '; an owner asked to end it early, a second member must approve' : '';
  return `until ${when(e.usableFrom)}${asked}`;
}

/** The actions the member may take on one entry; the server checks roles and step-ups again. */
function EntryActions({ e, me, act }: { e: Entry; me: Me; act: (what: string, path: string, method?: string) => void }) {
  if (!mayMoveFunds(me)) return null;
  return (
    <div class="actions">
      {e.status === 'cooling_off' && me.role === 'owner' && e.shortenRequestedBy === null && (
        <button type="button" class="secondary" onClick={() => act(`ask to end the cooling-off of "${e.name}"`, `/${e.id}/shorten`)}>
          Ask to end cooling-off
        </button>
      )}
      {e.status === 'cooling_off' && e.shortenRequestedBy !== null && e.shortenRequestedBy !== me.memberId && (
        <button type="button" onClick={() => act(`approve ending the cooling-off of "${e.name}"`, `/${e.id}/approve-shorten`)}>
          Approve ending cooling-off
        </button>
      )}
      <button type="button" class="danger" onClick={() => act(`remove "${e.name}"`, `/${e.id}`, 'DELETE')}>
        Remove
      </button>
    </div>
  );
}

/**
 * The destination address book (issue 42 §7): named addresses per wallet or for every wallet, each
 * cooling off for a while after it is added before an "only to the address book" policy lets it
 * receive. Owners and admins add and remove entries (step-up); an owner and a second member can
 * end a cooling-off early.
 */
export function AddressBook({ me }: PageProps) {
  const [rows, setRows] = useState<Entry[] | null>(null);
  const [coolingOffMs, setCoolingOffMs] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [d, setD] = useState({ name: '', chain: 'ethereum', network: '', address: '', wallet: '' });
  const step = useStepUp(setError);
  const set = (k: keyof typeof d) => (v: string) => setD({ ...d, [k]: v });

  const load = () =>
    api<{ data: Entry[]; coolingOffMs: number }>('GET', '/address-book')
      .then((r) => {
        setRows(r.data);
        setCoolingOffMs(r.coolingOffMs);
      })
      .catch((e) => setError(errorText(e)));
  useEffect(() => void load(), []);

  const add = () =>
    step.run(`add "${d.name}" to the address book`, async () => {
      const wallet = d.wallet.trim();
      const e = await api<Entry>('POST', '/address-book', {
        name: d.name,
        chain: d.chain.trim(),
        network: d.network.trim(),
        address: d.address.trim(),
        walletId: wallet ? (/^[0-9]+$/.test(wallet) ? Number(wallet) : wallet) : null,
      });
      setNotice(`Added "${e.name}" (${e.address}): it can receive from ${when(e.usableFrom)}.`);
      setD({ ...d, name: '', address: '' });
      await load();
    });
  const act = (what: string, path: string, method = 'POST') =>
    void step.run(what, async () => {
      await api(method, `/address-book${path}`);
      setNotice(`Done: ${what}.`);
      await load();
    });

  return (
    <>
      <h1>Address book</h1>
      <p class="muted">
        Named destinations. With an "Only to the address book" policy, withdrawals go only to entries that have finished their cooling-off
        period ({hours(coolingOffMs)} after they are added).
      </p>
      {notice && (
        <p class="notice" role="status" data-testid="address-book-notice">
          {notice}
        </p>
      )}
      <ErrorLine error={error} />
      <StepUpForm step={step} />
      {rows === null ? (
        <p>Loading…</p>
      ) : rows.length === 0 ? (
        <p data-testid="address-book-empty">No entries yet.</p>
      ) : (
        <table class="address-book" data-testid="address-book">
          <thead>
            <tr>
              <th>Name</th>
              <th>Address</th>
              <th>Chain</th>
              <th>Wallet</th>
              <th>State</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => (
              <tr key={e.id}>
                <td>{e.name}</td>
                <td>
                  <code>{e.address}</code>
                </td>
                <td>
                  {e.chain}/{e.network}
                </td>
                <td>{e.walletId === null ? 'every wallet' : (e.walletName ?? `#${e.walletId}`)}</td>
                <td>
                  <span class={`status ${e.status === 'usable' ? 'approved' : 'pending'}`}>
                    {e.status === 'usable' ? 'usable' : 'cooling off'}
                  </span>
                  <div class="muted">{stateText(e)}</div>
                </td>
                <td>
                  <EntryActions e={e} me={me} act={act} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {mayMoveFunds(me) && (
        <form
          class="address-book-form"
          onSubmit={(e) => {
            e.preventDefault();
            void add();
          }}
        >
          <h2>Add an address</h2>
          <Field label="Name" name="name" type="text" autocomplete="off" value={d.name} onValue={set('name')} />
          <Field label="Address" name="address" type="text" autocomplete="off" value={d.address} onValue={set('address')} />
          <Field label="Chain" name="chain" type="text" autocomplete="off" value={d.chain} onValue={set('chain')} />
          <Field label="Network" name="network" type="text" autocomplete="off" value={d.network} onValue={set('network')} />
          <Field
            label="Wallet id (empty: every wallet)"
            name="wallet"
            type="text"
            autocomplete="off"
            optional
            value={d.wallet}
            onValue={set('wallet')}
          />
          <div class="actions">
            <button type="submit" disabled={step.busy}>
              Add
            </button>
          </div>
        </form>
      )}
    </>
  );
}
