import { useEffect, useState } from 'preact/hooks';
import {
  api,
  type ChainHealth,
  type ChainReconciliation,
  type DeepReorgNotice,
  type DriftView,
  errorText,
  type OverviewWallet,
} from '../api';
import { Amount } from '../amount';
import { ErrorLine } from '../fields';
import { addAmounts } from '../money';
import type { PageProps } from '../routes';
import { navigate } from '../router';
import { ReconciliationPanel } from './ReconciliationPanel';

/** Why a chain is not ready, in words (the codes are /readyz's). */
const REASONS: Record<string, string> = {
  not_indexed: 'no indexer has reported yet',
  stale: 'the indexer has not reported lately',
  stalled: 'the indexer is stuck in a round',
  lagging: 'the indexer is behind the node',
  node_unreachable: 'the node does not answer',
  disk_full: 'the database is out of disk space',
};

function health(c: ChainHealth): string {
  if (c.ready) return 'ok';
  const reason = c.reason ?? 'not ready';
  return REASONS[reason] ?? reason;
}

/**
 * The landing page: the company's wallets with their balances per asset (confirmed, pending,
 * reserved by withdrawals in flight, available) and each followed chain's indexer health and lag.
 */
export function Overview({ me }: PageProps) {
  type OverviewData = {
    wallets: OverviewWallet[];
    chains: ChainHealth[];
    reconciliation: ChainReconciliation[];
    deepReorgs: DeepReorgNotice[];
    drifts: DriftView[];
  };
  const [data, setData] = useState<OverviewData | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () => {
    api<OverviewData>('GET', '/overview')
      .then(setData)
      .catch((e) => setError(errorText(e)));
  };
  useEffect(load, []);
  const go = (to: string) => (e: Event) => {
    e.preventDefault();
    navigate(to);
  };
  return (
    <>
      <h1>Overview</h1>
      {!me.mfaEnrolled && (
        <p>
          <a href="/console/mfa" onClick={go('/console/mfa')}>
            Set up an authenticator
          </a>{' '}
          to protect your account.
        </p>
      )}
      <ErrorLine error={error} />
      {data === null && !error && <p>Loading…</p>}
      {data && (
        <>
          {data.deepReorgs.length > 0 && (
            // A credit the chain took back: the operator must know even if every receiver reversed it.
            <div class="error" role="alert" data-testid="deep-reorg">
              {data.deepReorgs.map((r) => (
                <p key={`${r.chain}:${r.network}:${r.at}`}>
                  Reorg deeper than the confirmation threshold on {r.chain} / {r.network} at {new Date(r.at).toLocaleString()} (rewound to
                  block {r.ancestor}): confirmed deposits not mined again were retracted (deposit.rejected, previousStatus confirmed) and
                  confirmed withdrawals went back to broadcast.
                </p>
              ))}
            </div>
          )}
          <h2>Wallets</h2>
          {data.wallets.length === 0 ? (
            // A first start has none, and the console makes none: say where they come from.
            <p class="muted" data-testid="no-wallets">
              No wallets yet. Wallets are created through the API (<code>POST /v1/wallets</code> with an API key), as in the README's devnet
              loop; their balances show here.
            </p>
          ) : (
            <table data-testid="balances">
              <thead>
                <tr>
                  <th>Wallet</th>
                  <th>Chain</th>
                  <th>Asset</th>
                  <th class="num">Confirmed</th>
                  <th class="num">Pending</th>
                  <th class="num">Reserved</th>
                  <th class="num">Available</th>
                </tr>
              </thead>
              <tbody>
                {data.wallets.flatMap((w) =>
                  w.balances.map((b, i) => (
                    <tr key={`${w.id}:${b.asset.key}`}>
                      <td>
                        {i === 0 && (
                          <a
                            href={`/console/wallets/${w.id}/addresses`}
                            onClick={go(`/console/wallets/${w.id}/addresses`)}
                            title={`The addresses of ${w.name}`}
                          >
                            {w.name}
                          </a>
                        )}
                      </td>
                      <td>{i === 0 ? `${w.chain} / ${w.network}` : ''}</td>
                      <td>{b.asset.symbol}</td>
                      <td class="num">
                        <Amount value={b.confirmed} />
                      </td>
                      <td class="num">
                        <Amount value={b.pending} />
                      </td>
                      <td class="num">
                        <Amount value={b.reserved} />
                      </td>
                      <td class="num">
                        <Amount value={b.available} />
                      </td>
                    </tr>
                  )),
                )}
              </tbody>
              <AssetTotals wallets={data.wallets} />
            </table>
          )}
          <p class="muted">
            Confirmed is credited; pending is detected but not final; reserved is held by withdrawals in flight; available is what a new
            withdrawal can take. A wallet's name opens its addresses (and which of their keys are held in the token).
          </p>
          <h2>Indexers</h2>
          {data.chains.length === 0 ? (
            <p class="muted">No chain is followed (chains[] in the configuration).</p>
          ) : (
            <table data-testid="chains">
              <thead>
                <tr>
                  <th>Chain</th>
                  <th class="num">Node head</th>
                  <th class="num">Indexed</th>
                  <th class="num">Lag (blocks)</th>
                  <th>Health</th>
                </tr>
              </thead>
              <tbody>
                {data.chains.map((c) => (
                  <tr key={`${c.chain}:${c.network}`}>
                    <td>
                      {c.chain} / {c.network}
                    </td>
                    <td class="num">{c.head ?? '—'}</td>
                    <td class="num">{c.indexed ?? '—'}</td>
                    <td class="num">{c.lag ?? '—'}</td>
                    <td class={c.ready ? 'ok' : 'error'}>{health(c)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {data.reconciliation.length > 0 && <ReconciliationPanel chains={data.reconciliation} drifts={data.drifts} onChecked={load} />}
        </>
      )}
      <p class="muted">Session ends by {new Date(me.sessionExpiresAt).toLocaleString()} at the latest.</p>
    </>
  );
}

type Balance = OverviewWallet['balances'][number];
const COLUMNS = ['confirmed', 'pending', 'reserved', 'available'] as const;

/** Per chain and asset, the four balances of every wallet added up exactly (shown when an asset is held by more than one wallet). */
function AssetTotals({ wallets }: { wallets: OverviewWallet[] }) {
  const groups = new Map<string, { chain: string; symbol: string; rows: Balance[] }>();
  for (const w of wallets)
    for (const b of w.balances) {
      const key = `${w.chain}/${w.network}/${b.asset.key}`;
      const group = groups.get(key) ?? { chain: `${w.chain} / ${w.network}`, symbol: b.asset.symbol, rows: [] };
      group.rows.push(b);
      groups.set(key, group);
    }
  const shared = [...groups].filter(([, g]) => g.rows.length > 1);
  if (shared.length === 0) return null;
  return (
    <tfoot data-testid="asset-totals">
      {shared.map(([key, g]) => (
        <tr key={key}>
          <th scope="row">Total</th>
          <td>{g.chain}</td>
          <td>{g.symbol}</td>
          {COLUMNS.map((c) => (
            <td class="num" key={c}>
              <Amount value={addAmounts(g.rows.map((b) => b[c]))} />
            </td>
          ))}
        </tr>
      ))}
    </tfoot>
  );
}
