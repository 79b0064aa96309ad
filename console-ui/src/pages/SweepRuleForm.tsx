import { useState } from 'preact/hooks';
import { api } from '../api';
import { Field } from '../fields';
import type { StepUp } from '../stepUp';
import type { SweepRule, WalletSweeps } from './sweepTypes';

interface Draft {
  walletId: string;
  asset: string;
  destination: string;
  threshold: string;
  minLeft: string;
  trigger: 'deposit' | 'schedule';
  intervalSeconds: string;
  gasDailyCap: string;
  feeRate: string;
}

/** A new rule; the amounts stay the typed decimal strings (never a float) and the server names a wrong field. */
export function RuleForm(props: { wallets: WalletSweeps[]; step: StepUp; onSaved: (r: SweepRule) => void; onCancel: () => void }) {
  const [d, setD] = useState<Draft>({
    walletId: String(props.wallets[0]?.id ?? ''),
    asset: '',
    destination: '',
    threshold: '',
    minLeft: '',
    trigger: 'deposit',
    intervalSeconds: '3600',
    gasDailyCap: '',
    feeRate: '',
  });
  // What the chain does, as the console API says it: a consolidation's rule takes a fee rate instead.
  const consolidates = props.wallets.find((w) => String(w.id) === d.walletId)?.consolidates === true;
  const set = (k: keyof Draft) => (v: string) => setD({ ...d, [k]: v });
  const save = () =>
    props.step.run('create this sweep rule', async () => {
      const body = {
        asset: d.asset.trim(),
        destination: d.destination.trim(),
        threshold: d.threshold.trim(),
        trigger: d.trigger,
        ...(d.minLeft.trim() && !consolidates ? { minLeft: d.minLeft.trim() } : {}),
        ...(d.trigger === 'schedule' ? { intervalSeconds: Number(d.intervalSeconds) } : {}),
        ...(d.gasDailyCap.trim() && !consolidates ? { gasDailyCap: d.gasDailyCap.trim() } : {}),
        // An integer rate goes as a number; anything else as typed, so the server names the field (400).
        ...(d.feeRate.trim() && consolidates
          ? { feeRate: /^\d+$/.test(d.feeRate.trim()) ? Number(d.feeRate.trim()) : d.feeRate.trim() }
          : {}),
      };
      props.onSaved(await api<SweepRule>('POST', `/wallets/${d.walletId}/sweep-rules`, body));
    });
  return (
    <form
      class="policy-form"
      data-testid="sweep-form"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h2>New sweep rule</h2>
      <label>
        Wallet
        <select name="wallet" value={d.walletId} onChange={(e) => set('walletId')(e.currentTarget.value)}>
          {props.wallets.map((w) => (
            <option key={w.id} value={String(w.id)}>
              {w.name} (#{w.id}, {w.chain}/{w.network})
            </option>
          ))}
        </select>
      </label>
      <Field
        label="Asset (a symbol such as USDC, or an asset key)"
        name="asset"
        type="text"
        autocomplete="off"
        value={d.asset}
        onValue={set('asset')}
      />
      <Field
        label="Destination (the treasury address)"
        name="destination"
        type="text"
        autocomplete="off"
        value={d.destination}
        onValue={set('destination')}
      />
      <Field label="Threshold (amount)" name="threshold" type="text" autocomplete="off" value={d.threshold} onValue={set('threshold')} />
      {!consolidates && (
        <Field
          label="Left on each address (amount, optional)"
          name="minLeft"
          type="text"
          autocomplete="off"
          optional
          value={d.minLeft}
          onValue={set('minLeft')}
        />
      )}
      <label>
        Trigger
        <select name="trigger" value={d.trigger} onChange={(e) => set('trigger')(e.currentTarget.value)}>
          <option value="deposit">After each confirmed deposit</option>
          <option value="schedule">On a schedule</option>
        </select>
      </label>
      {d.trigger === 'schedule' && (
        <Field
          label="Every (seconds)"
          name="intervalSeconds"
          type="text"
          autocomplete="off"
          value={d.intervalSeconds}
          onValue={set('intervalSeconds')}
        />
      )}
      {consolidates ? (
        <Field
          label="Fee rate (base units per vbyte, optional: the node's estimate)"
          name="feeRate"
          type="text"
          autocomplete="off"
          optional
          value={d.feeRate}
          onValue={set('feeRate')}
        />
      ) : (
        <Field
          label="Gas top-ups per 24 hours at most (native coin, optional)"
          name="gasDailyCap"
          type="text"
          autocomplete="off"
          optional
          value={d.gasDailyCap}
          onValue={set('gasDailyCap')}
        />
      )}
      {!props.step.pending && (
        <div class="actions">
          <button type="submit" disabled={props.step.busy}>
            Create rule
          </button>
          <button type="button" class="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        </div>
      )}
    </form>
  );
}
