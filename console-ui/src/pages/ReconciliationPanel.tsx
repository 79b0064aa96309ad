import { useState } from 'preact/hooks';
import { api, type ChainReconciliation, type DriftView, errorText } from '../api';
import { ErrorLine } from '../fields';

/** One line per chain: what the last comparison of indexed balances with the node found. */
function reconciled(r: ChainReconciliation): string {
  // A "check now" finds drifts before the chain's first run: they show whatever the run's state.
  const when = r.lastRunAt === null ? '' : ` (checked ${new Date(r.lastRunAt).toLocaleString()})`;
  if (r.lastError) return `last run failed (${r.lastError})${when}`;
  if (r.openDrifts > 0) return `${r.openDrifts} drift${r.openDrifts === 1 ? '' : 's'}: the node differs from walletd${when}`;
  return r.lastRunAt === null ? 'not compared yet' : `balances match the node${when}`;
}

/** A drift in one line: where, how much, and what the records say about it. */
function driftLine(d: DriftView): string {
  const where = d.address ?? `wallet #${d.walletId} (all its addresses)`;
  const sign = d.drift.startsWith('-') ? 'less' : 'more';
  const amount = d.drift.replace(/^-/, '');
  const head = `${where}: the node holds ${amount} ${d.asset.symbol} ${sign} than walletd credits`;
  const causes = d.explanation?.causes ?? [];
  return causes.length === 0
    ? `${head}; nothing in the records explains it (a deposit not indexed, a payout made elsewhere?)`
    : `${head}; ${causes.map((c) => c.description).join('; ')}`;
}

/**
 * The overview's reconciliation: per chain, the last comparison; each open drift with what explains
 * it and the transactions since the node last agreed; and "Check now" (any member: the server
 * limits how often, docs/guide/reconciliation.md).
 */
export function ReconciliationPanel(props: { chains: ChainReconciliation[]; drifts: DriftView[]; onChecked: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<string | null>(null);
  const check = async () => {
    setBusy(true);
    setError(null);
    try {
      const run = await api<{ chains: { addresses: number; error: string | null }[]; drifts: DriftView[] }>(
        'POST',
        '/reconciliation/checks',
      );
      const read = run.chains.reduce((n, c) => n + c.addresses, 0);
      const failed = run.chains.filter((c) => c.error).length;
      setOutcome(
        `Compared ${read} address${read === 1 ? '' : 'es'} with the node: ${run.drifts.length === 0 ? 'no drift' : `${run.drifts.length} drift${run.drifts.length === 1 ? '' : 's'}`}${failed ? `; ${failed} chain(s) could not be read` : ''}.`,
      );
      props.onChecked();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <h2>Reconciliation</h2>
      <ul data-testid="reconciliation">
        {props.chains.map((r) => (
          <li key={`${r.chain}:${r.network}`} class={r.openDrifts > 0 || r.lastError ? 'error' : ''}>
            {r.chain} / {r.network}: {reconciled(r)}
          </li>
        ))}
      </ul>
      {props.drifts.length > 0 && (
        <ul data-testid="drifts">
          {props.drifts.map((d) => (
            <li key={`${d.walletId}:${d.address}:${d.asset.key}`}>
              {driftLine(d)}
              {(d.explanation?.transactions.length ?? 0) > 0 && (
                <ul>
                  {d.explanation?.transactions.map((t) => (
                    <li key={`${t.type}:${t.id}`}>
                      {t.type} #{t.id} {t.direction} {t.amount} {d.asset.symbol}, {t.status}
                      {t.reason ? ` (${t.reason})` : ''} {t.txHash ?? ''}
                    </li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ul>
      )}
      <button type="button" disabled={busy} onClick={() => void check()}>
        {busy ? 'Checking…' : 'Check now'}
      </button>
      {outcome && (
        <p class="muted" data-testid="check-outcome">
          {outcome}
        </p>
      )}
      <ErrorLine error={error} />
    </>
  );
}
