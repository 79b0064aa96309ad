import { BaseError, type Db } from '@walletd/core';
import { pooledFunds } from '../funds/requireFunds';
import { type CompareDeps, type CompareTally, emptyTally, scopeComparer } from './compareScopes';
import { nextScopes } from './nextScopes';
import { recheckDrifts } from './recheckDrifts';

/** One chain's part of a "check now". */
export interface ChainCheck extends CompareTally {
  chain: string;
  network: string;
  /** Every holding address of the company on the chain was compared (false: `addressesPerRun` was reached first). */
  complete: boolean;
  /** Why the chain's comparison stopped early (the node failed); null when it did not. */
  error: string | null;
}

export interface CheckNowRun {
  startedAt: Date;
  finishedAt: Date;
  chains: ChainCheck[];
}

interface Company {
  running: Promise<CheckNowRun> | null;
  lastStartedAt: number;
}

/** Per database (one app), per company: the run under way and when the last one began. */
const state = new WeakMap<Db, Map<number, Company>>();

/**
 * "Check now" (README "Reconciliation"): compares every holding address of the company's wallets on
 * every followed chain with the node, at once, and takes the second look of any drift it sees
 * `confirmDelayMs` later, so what it finds is announced (`reconciliation.drift`) before it answers.
 * A call while the company's check is under way gets that same run (never two at once in this
 * process); a new one starts at most once per `checkNowMinIntervalMs`, else 429 `rate_limited`.
 * Up to `addressesPerRun` addresses per chain, paced like the indexer's runs.
 */
export function checkNow(deps: CompareDeps, companyId: number): { run: Promise<CheckNowRun>; joined: boolean } {
  let companies = state.get(deps.db);
  if (!companies) {
    companies = new Map();
    state.set(deps.db, companies);
  }
  const c = companies.get(companyId) ?? { running: null, lastStartedAt: 0 };
  companies.set(companyId, c);
  if (c.running) return { run: c.running, joined: true };
  const wait = c.lastStartedAt + deps.config.reconciliation.checkNowMinIntervalMs - Date.now();
  if (wait > 0)
    throw new BaseError('rate_limited', `A check ran moments ago; the next may start in ${Math.ceil(wait / 1000)} seconds`, {
      details: { retryAfterSeconds: Math.ceil(wait / 1000) },
    });
  c.lastStartedAt = Date.now();
  const run = compareCompany(deps, companyId).finally(() => {
    c.running = null;
  });
  c.running = run;
  return { run, joined: false };
}

async function compareCompany(deps: CompareDeps, companyId: number): Promise<CheckNowRun> {
  // The database's clock: the checks' `checked_at` are read against it.
  const startedAt = ((await deps.db.raw('select now() as t')) as { rows: { t: Date }[] }).rows[0]!.t;
  const chains: ChainCheck[] = [];
  for (const settings of deps.config.chains) {
    const key = { chain: settings.chain, network: settings.network };
    const compare = scopeComparer(deps, key);
    const plugin = deps.plugins.forChain(key.chain);
    if (!compare || !plugin) continue;
    const out: ChainCheck = { ...key, ...emptyTally(), complete: false, error: null };
    chains.push(out);
    try {
      let cursor = 0;
      for (;;) {
        const left = deps.config.reconciliation.addressesPerRun - out.addresses;
        const page = await nextScopes(deps.db, key, pooledFunds(plugin, key.chain), cursor, Math.max(1, left), companyId);
        for (const { scope, next } of page.scopes) {
          await compare(scope, out);
          cursor = next;
        }
        if (page.last) out.complete = true;
        if (page.last || out.addresses >= deps.config.reconciliation.addressesPerRun) break;
      }
    } catch (err) {
      out.error = err instanceof Error ? err.message.slice(0, 500) : String(err);
    }
  }
  // The second look, soon: a drift seen once may be a block the indexer has not read yet.
  if (chains.some((c) => c.awaiting > 0)) {
    await new Promise((r) => setTimeout(r, deps.config.reconciliation.confirmDelayMs));
    for (const out of chains) {
      if (out.awaiting === 0 || out.error) continue;
      try {
        const second = await recheckDrifts(deps, { chain: out.chain, network: out.network }, { companyId });
        out.drifts += second.drifts;
        out.cleared += second.cleared;
        out.awaiting = second.awaiting;
      } catch (err) {
        out.error = err instanceof Error ? err.message.slice(0, 500) : String(err);
      }
    }
  }
  return { startedAt, finishedAt: new Date(), chains };
}
