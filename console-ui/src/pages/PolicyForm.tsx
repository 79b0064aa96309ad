import { useState } from 'preact/hooks';
import { api, type Policy } from '../api';
import { Field } from '../fields';
import type { StepUp } from '../stepUp';

/** The kinds, in words, in the engine's order (a denial is never hidden behind an approval). */
export const KINDS: [string, string][] = [
  ['approval_above', 'Needs approvals at or above an amount'],
  ['max_per_transaction', 'Maximum per withdrawal'],
  ['daily_volume', 'Maximum per wallet in any 24 hours'],
  ['allow_destinations', 'Only to allow-listed addresses'],
  ['address_book', 'Only to the address book (entries past their cooling-off)'],
  ['deny_destinations', 'Never to these addresses'],
];

interface Draft {
  name: string;
  kind: string;
  asset: string;
  chain: string;
  wallets: string;
  addresses: string;
  max: string;
  threshold: string;
  approvals: string;
  onApproval: string;
}

const draftOf = (p: Policy | null): Draft => ({
  name: p?.name ?? '',
  kind: p?.kind ?? 'approval_above',
  asset: p?.asset?.key ?? '',
  chain: '',
  wallets: p?.walletIds?.join(', ') ?? '',
  addresses: p?.addresses?.join('\n') ?? '',
  max: p?.max ?? '',
  threshold: p?.threshold ?? '',
  approvals: String(p?.approvals ?? 1),
  onApproval: p?.onApproval ?? '',
});

/** The body the API takes: amounts stay the typed decimal strings (never a float); the server names a wrong field. */
function bodyOf(d: Draft): Record<string, unknown> {
  const list = d.kind === 'allow_destinations' || d.kind === 'deny_destinations';
  const wallets = d.wallets
    .split(',')
    .map((w) => w.trim())
    .filter(Boolean);
  return {
    name: d.name,
    kind: d.kind,
    asset: d.asset.trim() || undefined,
    walletIds: wallets.length ? wallets.map((w) => (/^[0-9]+$/.test(w) ? Number(w) : w)) : null,
    ...(list
      ? {
          chain: d.chain.trim() || undefined,
          addresses: d.addresses
            .split('\n')
            .map((a) => a.trim())
            .filter(Boolean),
        }
      : {}),
    ...(d.kind === 'approval_above'
      ? {
          threshold: d.threshold.trim(),
          approvals: /^[0-9]+$/.test(d.approvals.trim()) ? Number(d.approvals) : d.approvals,
          onApproval: d.onApproval || undefined,
        }
      : {}),
    ...(d.kind === 'max_per_transaction' || d.kind === 'daily_volume' ? { max: d.max.trim() } : {}),
  };
}

/** Create (no `policy`) or edit one policy; saving goes through the step-up the server asks for. */
export function PolicyForm(props: { policy: Policy | null; step: StepUp; onSaved: (p: Policy) => void; onCancel: () => void }) {
  const [d, setD] = useState<Draft>(draftOf(props.policy));
  const set = (k: keyof Draft) => (v: string) => setD({ ...d, [k]: v });
  const editing = props.policy;
  const save = () =>
    props.step.run(editing ? `save policy "${editing.name}"` : 'create this policy', async () => {
      const body = bodyOf(d);
      props.onSaved(editing ? await api<Policy>('PUT', `/policies/${editing.id}`, body) : await api<Policy>('POST', '/policies', body));
    });
  const list = d.kind === 'allow_destinations' || d.kind === 'deny_destinations';
  const assetOptional = list || d.kind === 'address_book';
  return (
    <form
      class="policy-form"
      data-testid="policy-form"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h2>{editing ? `Edit policy #${editing.id}` : 'New policy'}</h2>
      <Field label="Name" name="name" type="text" autocomplete="off" value={d.name} onValue={set('name')} />
      <label>
        Rule
        <select name="kind" value={d.kind} onChange={(e) => set('kind')(e.currentTarget.value)}>
          {KINDS.map(([k, words]) => (
            <option key={k} value={k}>
              {words}
            </option>
          ))}
        </select>
      </label>
      <Field
        label={
          assetOptional
            ? 'Asset (optional: every asset when empty)'
            : 'Asset (a key such as ethereum:mainnet:eth, or a symbol such as USDC)'
        }
        name="asset"
        type="text"
        autocomplete="off"
        optional={assetOptional}
        value={d.asset}
        onValue={set('asset')}
      />
      {d.kind === 'approval_above' && (
        <>
          <Field
            label="At or above (amount)"
            name="threshold"
            type="text"
            autocomplete="off"
            value={d.threshold}
            onValue={set('threshold')}
          />
          <Field label="Approvals needed" name="approvals" type="text" autocomplete="off" value={d.approvals} onValue={set('approvals')} />
          <label>
            At approval
            <select name="onApproval" value={d.onApproval} onChange={(e) => set('onApproval')(e.currentTarget.value)}>
              <option value="">the deployment's default</option>
              <option value="wait_for_send">wait for a person's Send</option>
              <option value="send">send at once</option>
            </select>
          </label>
        </>
      )}
      {(d.kind === 'max_per_transaction' || d.kind === 'daily_volume') && (
        <Field label="Maximum (amount)" name="max" type="text" autocomplete="off" value={d.max} onValue={set('max')} />
      )}
      {list && (
        <>
          <label>
            Addresses (one per line)
            <textarea name="addresses" rows={4} required value={d.addresses} onInput={(e) => set('addresses')(e.currentTarget.value)} />
          </label>
          <Field
            label="Chain (optional, e.g. bitcoin)"
            name="chain"
            type="text"
            autocomplete="off"
            optional
            value={d.chain}
            onValue={set('chain')}
          />
        </>
      )}
      <Field
        label="Wallet ids (comma-separated; every wallet when empty)"
        name="wallets"
        type="text"
        autocomplete="off"
        optional
        value={d.wallets}
        onValue={set('wallets')}
      />
      {!props.step.pending && (
        <div class="actions">
          <button type="submit" disabled={props.step.busy}>
            {editing ? 'Save policy' : 'Create policy'}
          </button>
          <button type="button" class="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        </div>
      )}
    </form>
  );
}
