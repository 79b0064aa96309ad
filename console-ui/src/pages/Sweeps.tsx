import { useEffect, useState } from 'preact/hooks';
import { api, errorText, when } from '../api';
import { ErrorLine } from '../fields';
import type { PageProps } from '../routes';
import { StepUpForm, useStepUp } from '../stepUp';
import { RuleForm } from './SweepRuleForm';
import type { GasStation, SweepRule, WalletSweeps } from './sweepTypes';

function Station({ s }: { s: GasStation }) {
  const sym = s.asset.symbol;
  return (
    <p data-testid="gas-station">
      Gas station <code>{s.address}</code>
      {s.keyHeldIn === 'token' ? ' (key held in the HSM token)' : s.keyHeldIn === 'kms' ? ' (key held in AWS KMS)' : ''}: {s.available}{' '}
      {sym} available ({s.reserved} {sym} held by top-ups in flight, {s.spentLast24h} {sym} spent in 24 hours).{' '}
      {s.estimate
        ? `One ${s.estimate.token.symbol} top-up costs ${s.estimate.topUp} + ${s.estimate.topUpFee} ${sym} now (fee + ${s.marginPercent}%, and its own fee): runway ${s.estimate.runway} top-ups.`
        : 'Fund it with the native coin; it pays the gas of token sweeps.'}
    </p>
  );
}

/**
 * Sweeps: each wallet's rules (what moves where, when, and why the last run could not) and its gas
 * station (balance and runway). Creating, enabling and disabling a rule asks for a step-up; the
 * server checks the member's role (docs/guide/sweeps-and-gas.md).
 */
export function Sweeps(_props: PageProps) {
  const [wallets, setWallets] = useState<WalletSweeps[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const step = useStepUp(setError);
  const load = () =>
    api<{ wallets: WalletSweeps[] }>('GET', '/sweeps')
      .then((r) => setWallets(r.wallets))
      .catch((e) => setError(errorText(e)));
  useEffect(() => {
    void load();
  }, []);
  const saved = (what: string) => (r: SweepRule) => {
    setCreating(false);
    setNotice(`${what}: rule #${r.id} sweeps ${r.asset.symbol} at ${r.threshold} or more to ${r.destination}.`);
    void load();
  };
  const toggle = (w: WalletSweeps, r: SweepRule) =>
    step.run(`${r.enabled ? 'disable' : 'enable'} sweep rule #${r.id}`, async () => {
      saved(r.enabled ? 'Disabled' : 'Enabled')(
        await api<SweepRule>('POST', `/wallets/${w.id}/sweep-rules/${r.id}/${r.enabled ? 'disable' : 'enable'}`),
      );
    });
  const shown = wallets?.filter((w) => w.rules.length || w.station || w.stationError) ?? [];
  return (
    <>
      <h1>Sweeps</h1>
      <p class="muted">
        A rule moves what each deposit address holds above a threshold to one destination, as ordinary withdrawals. On EVM chains the
        wallet's gas station first sends a token address the fee it lacks.
      </p>
      {notice && (
        <p class="notice" role="status" data-testid="sweep-notice">
          {notice}
        </p>
      )}
      <ErrorLine error={error} />
      {wallets === null && !error && <p>Loading…</p>}
      {wallets && shown.length === 0 && <p data-testid="sweeps-empty">No sweep rules yet: funds stay where they were deposited.</p>}
      {shown.map((w) => (
        <section key={w.id} data-testid={`sweeps-wallet-${w.id}`}>
          <h2>
            {w.name} (#{w.id}, {w.chain}/{w.network})
          </h2>
          {w.station && <Station s={w.station} />}
          {w.stationError && <p class="error">Gas station: {w.stationError}</p>}
          <table data-testid="sweep-rules">
            <thead>
              <tr>
                <th>Rule</th>
                <th>Asset</th>
                <th>To</th>
                <th>Threshold</th>
                <th>When</th>
                <th>{w.consolidates ? 'Fee rate' : 'Gas cap / 24 h'}</th>
                <th>Last run</th>
                <th>Status</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {w.rules.map((r) => (
                <tr key={r.id} data-testid={`sweep-rule-${r.id}`}>
                  <td>#{r.id}</td>
                  <td>{r.asset.symbol}</td>
                  <td>
                    <code>{r.destination}</code>
                  </td>
                  <td>
                    {r.threshold} (keeps {r.minLeft})
                  </td>
                  <td>{r.trigger === 'deposit' ? 'after each deposit' : `every ${r.intervalSeconds} s`}</td>
                  <td>
                    {w.consolidates ? (r.feeRate === null ? "node's estimate" : `${r.feeRate} per vbyte`) : (r.gasDailyCap ?? 'none')}
                  </td>
                  <td>
                    {r.lastRunAt ? <time dateTime={r.lastRunAt}>{when(r.lastRunAt)}</time> : 'not yet'}
                    {r.lastError && <span class="error"> {r.lastError}</span>}
                  </td>
                  <td>{r.enabled ? 'enabled' : 'disabled'}</td>
                  <td class="row-actions">
                    <button type="button" class="secondary" disabled={step.busy} onClick={() => void toggle(w, r)}>
                      {r.enabled ? 'Disable' : 'Enable'}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ))}
      {!creating && wallets && wallets.length > 0 && (
        <div class="actions">
          <button type="button" onClick={() => setCreating(true)}>
            New sweep rule
          </button>
        </div>
      )}
      {creating && wallets && <RuleForm wallets={wallets} step={step} onSaved={saved('Created')} onCancel={() => setCreating(false)} />}
      <StepUpForm step={step} />
    </>
  );
}
