import { useEffect, useState } from 'preact/hooks';
import { api, errorText, type Transaction, when } from '../api';
import { ErrorLine } from '../fields';
import type { PageProps } from '../routes';
import { navigate } from '../router';

type Deposit = Transaction & { lifecycle: { state: string; at: string; detail?: string }[] };

/** One deposit: where it came from and went, and each step of its life with the time. */
export function DepositDetail({ params }: PageProps) {
  const id = params[0] ?? '';
  const [d, setD] = useState<Deposit | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<Deposit>('GET', `/transactions/deposits/${encodeURIComponent(id)}`)
      .then(setD)
      .catch((e) => setError(errorText(e)));
  }, [id]);
  const back = (e: Event) => {
    e.preventDefault();
    navigate('/console/transactions');
  };
  return (
    <>
      <p>
        <a href="/console/transactions" onClick={back}>
          ← All transactions
        </a>
      </p>
      <ErrorLine error={error} />
      {!d && !error && <p>Loading…</p>}
      {d && (
        <>
          <h1>
            Deposit #{d.id} <span class={`status ${d.status}`}>{d.status}</span>
          </h1>
          <dl class="facts" data-testid="deposit-facts">
            <dt>Amount</dt>
            <dd>
              {d.amount} {d.asset.symbol}
            </dd>
            <dt>Wallet</dt>
            <dd>
              {d.walletName}{' '}
              <span class="muted">
                ({d.chain} / {d.network})
              </span>
            </dd>
            <dt>Hash</dt>
            <dd>
              <code>{d.txHash}</code>
            </dd>
            <dt>From</dt>
            <dd>
              <code>{d.fromAddress ?? '—'}</code>
            </dd>
            <dt>To</dt>
            <dd>
              <code>{d.toAddress}</code>
            </dd>
            <dt>Block</dt>
            <dd>{d.blockNumber ?? '—'}</dd>
            <dt>Confirmations</dt>
            <dd>{d.confirmations}</dd>
          </dl>
          <h2>Lifecycle</h2>
          <ol data-testid="lifecycle">
            {d.lifecycle.map((l) => (
              <li key={l.state}>
                {l.state} on {when(l.at)}
                {l.detail && ` (${l.detail})`}
              </li>
            ))}
          </ol>
        </>
      )}
    </>
  );
}
