import { useState } from 'preact/hooks';
import { ApiError, api, errorText } from '../api';
import { CodeField, ErrorLine } from '../fields';
import type { ActionChoice, CreatedKey } from '../keys';

const EXPIRIES = [
  ['', 'Never'],
  ['1d', '1 day'],
  ['30d', '30 days'],
  ['90d', '90 days'],
  ['365d', '1 year'],
] as const;

const list = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

/** A refusal in words for the person at the form; the server's message names the field. */
function createErrorText(e: unknown): string {
  if (!(e instanceof ApiError)) return errorText(e);
  if (e.code === 'unauthorized') return 'That authenticator code is incorrect or was already used. Wait for the next code and try again.';
  return e.code === 'role_insufficient' ? `${e.message}.` : e.message;
}

/**
 * The create form: a name, the actions (in words; those the member's role does not carry are
 * disabled, the key could never use them), the wallets, an IP allow-list and an expiry. Like a
 * vote, it is sent first and asks for an authenticator code only when the server answers
 * step_up_required, then sends the code and the same key again.
 */
export function NewKeyForm(props: { actions: ActionChoice[]; onCreated: (c: CreatedKey) => void; onCancel: () => void }) {
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [everyWallet, setEveryWallet] = useState(true);
  const [wallets, setWallets] = useState('');
  const [ips, setIps] = useState('');
  const [expiresIn, setExpiresIn] = useState('90d');
  const [stepUp, setStepUp] = useState(false);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const toggle = (a: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(a);
    else next.delete(a);
    setChosen(next);
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      if (stepUp) await api('POST', '/step-up', { code: code.trim() });
      const body = {
        name: name.trim() || undefined,
        // In the catalogue's order, whatever order they were ticked in.
        actions: props.actions.map((a) => a.action).filter((a) => chosen.has(a)),
        walletIds: everyWallet ? '*' : list(wallets).map((w) => (/^[0-9]+$/.test(w) ? Number(w) : w)),
        allowIps: list(ips),
        expiresIn: expiresIn || undefined,
      };
      props.onCreated(await api<CreatedKey>('POST', '/keys', body));
    } catch (err) {
      if (err instanceof ApiError && err.code === 'step_up_required') setStepUp(true);
      else setError(createErrorText(err));
    } finally {
      setBusy(false);
      setCode('');
    }
  };

  return (
    <form class="new-key" onSubmit={(e) => void submit(e)} aria-label="New API key">
      <h2>New API key</h2>
      <label>
        Name (to tell keys apart)
        <input name="name" value={name} maxLength={100} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <fieldset>
        <legend>What the key may do</legend>
        {props.actions.map((a) => (
          <label class="check" key={a.action} title={a.allowed ? undefined : 'Your role does not carry this action'}>
            <input
              type="checkbox"
              name="actions"
              value={a.action}
              disabled={!a.allowed}
              checked={chosen.has(a.action)}
              onChange={(e) => toggle(a.action, e.currentTarget.checked)}
            />
            <span>
              <code>{a.action}</code> — {a.description}
              {!a.allowed && <span class="muted"> (not in your role)</span>}
            </span>
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Wallets</legend>
        <label class="check">
          <input type="radio" name="wallets" checked={everyWallet} onChange={() => setEveryWallet(true)} />
          <span>Every wallet, including wallets created later</span>
        </label>
        <label class="check">
          <input type="radio" name="wallets" checked={!everyWallet} onChange={() => setEveryWallet(false)} />
          <span>Only these wallets</span>
        </label>
        {!everyWallet && (
          <label>
            Wallet ids (comma-separated)
            <input name="walletIds" required value={wallets} onInput={(e) => setWallets(e.currentTarget.value)} />
          </label>
        )}
      </fieldset>
      <label>
        IP allow-list (addresses or CIDR ranges, comma-separated; empty: any address)
        <input name="allowIps" value={ips} placeholder="203.0.113.7, 10.0.0.0/8" onInput={(e) => setIps(e.currentTarget.value)} />
      </label>
      <label>
        Expires after
        <select name="expiresIn" value={expiresIn} onChange={(e) => setExpiresIn(e.currentTarget.value)}>
          {EXPIRIES.map(([v, label]) => (
            <option key={v} value={v}>
              {label}
            </option>
          ))}
        </select>
      </label>
      {stepUp && (
        <div class="step-up">
          <p>To create a key, confirm with a fresh code from your authenticator app.</p>
          <CodeField label="Authenticator code" value={code} onValue={setCode} />
        </div>
      )}
      <ErrorLine error={error} />
      <div class="actions">
        <button type="submit" disabled={busy || chosen.size === 0}>
          {stepUp ? 'Confirm and create key' : 'Create key'}
        </button>
        <button type="button" class="secondary" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
