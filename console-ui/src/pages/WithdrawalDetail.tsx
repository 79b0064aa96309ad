import { useEffect, useState } from 'preact/hooks';
import { api, errorText, type Withdrawal, when } from '../api';
import { ErrorLine } from '../fields';
import { KeyHeldMark } from '../keyHeld';
import { fromBaseUnits } from '../money';
import type { PageProps } from '../routes';
import { navigate } from '../router';
import { shownHash } from '../withdrawalHash';
import { Attempts, StuckPayoutActions } from './StuckPayout';
import { approversText, feeText, kindText, startedByText } from './Withdrawals';

/** History details that are fee amounts in the fee asset's base units. */
const FEE_KEYS = new Set(['feeEstimate', 'fee', 'feeCap', 'maxFee']);

/**
 * A history line's details in words: the request and approvals it came from, a hash, a reason;
 * fee amounts shown in the fee asset (the history keeps base units).
 */
function detailText(d: Record<string, unknown> | null, feeAsset: Withdrawal['asset'] | undefined): string {
  if (!d) return '';
  return Object.entries(d)
    .filter(([, v]) => v !== null && v !== undefined && typeof v !== 'object')
    .map(([k, v]) =>
      FEE_KEYS.has(k) && feeAsset && /^\d+$/.test(String(v))
        ? `${k} ${fromBaseUnits(String(v), feeAsset.decimals)} ${feeAsset.symbol}`
        : `${k} ${String(v)}`,
    )
    .join(', ');
}

/** One withdrawal: what it pays where, who asked and approved, and each status it passed with the time. */
export function WithdrawalDetail({ params, me }: PageProps) {
  const id = params[0] ?? '';
  const [w, setW] = useState<Withdrawal | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    // Another withdrawal (a "Waiting behind" link): never show, or act on, the previous one meanwhile.
    setW(null);
    api<Withdrawal>('GET', `/withdrawals/${encodeURIComponent(id)}`)
      .then(setW)
      .catch((e) => setError(errorText(e)));
  }, [id]);
  const go = (to: string) => (e: Event) => {
    e.preventDefault();
    navigate(to);
  };
  const feeAsset = w?.fee?.asset ?? w?.feeEstimate?.asset;
  const hash = w && shownHash(w);
  return (
    <>
      <p>
        <a href="/console/withdrawals" onClick={go('/console/withdrawals')}>
          ← All withdrawals
        </a>
      </p>
      <ErrorLine error={error} />
      {!w && !error && <p>Loading…</p>}
      {w && (
        <>
          <h1>
            Withdrawal #{w.id} <span class={`status ${w.status}`}>{w.status}</span>
          </h1>
          <dl class="facts" data-testid="withdrawal-facts">
            <dt>Kind</dt>
            <dd>{kindText(w)}</dd>
            <dt>Amount</dt>
            <dd>
              {w.amount} {w.asset.symbol}
            </dd>
            <dt>From wallet</dt>
            <dd>
              {w.walletName} <code>{w.fromAddress}</code>
              {w.fromKeyHeldIn && (
                <>
                  {' '}
                  <KeyHeldMark held={w.fromKeyHeldIn} />
                </>
              )}
            </dd>
            <dt>To</dt>
            <dd>
              {w.outputs.map((o) => (
                <div key={o.toAddress}>
                  <code>{o.toAddress}</code> {w.outputs.length > 1 && `${o.amount} ${w.asset.symbol}`}
                </div>
              ))}
            </dd>
            <dt>Fee</dt>
            <dd>{feeText(w)}</dd>
            <dt>{hash?.label ?? 'Hash'}</dt>
            <dd data-testid="withdrawal-hash">{hash ? <code>{hash.hash}</code> : '—'}</dd>
            <dt>Started by</dt>
            <dd>
              {startedByText(w)}
              {w.requestId !== null && (
                <>
                  {' '}
                  (
                  <a href={`/console/requests/${w.requestId}`} onClick={go(`/console/requests/${w.requestId}`)}>
                    request #{w.requestId}
                  </a>
                  )
                </>
              )}
            </dd>
            <dt>Approved by</dt>
            <dd>{approversText(w)}</dd>
            {w.reason && (
              <>
                <dt>Reason</dt>
                <dd class="error">{w.reason}</dd>
              </>
            )}
            {w.lastError && (
              <>
                <dt>Last error</dt>
                <dd class="error">{w.lastError}</dd>
              </>
            )}
            {w.blockedBy !== undefined && (
              <>
                <dt>Waiting behind</dt>
                <dd data-testid="blocked-by">
                  <a href={`/console/withdrawals/${w.blockedBy}`} onClick={go(`/console/withdrawals/${w.blockedBy}`)}>
                    withdrawal #{w.blockedBy}
                  </a>{' '}
                  (its earlier nonce must land or be replaced first)
                </dd>
              </>
            )}
          </dl>
          <StuckPayoutActions w={w} me={me} onDone={setW} setError={setError} />
          <Attempts w={w} />
          <h2>History</h2>
          <ol data-testid="history">
            {(w.history ?? []).map((h, i) => (
              <li key={i}>
                {h.status} on {when(h.at)}
                {detailText(h.details, feeAsset) && <span class="muted"> ({detailText(h.details, feeAsset)})</span>}
              </li>
            ))}
          </ol>
        </>
      )}
    </>
  );
}
