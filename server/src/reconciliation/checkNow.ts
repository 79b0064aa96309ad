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

/** Per database (one app): each company's check under way in this process. */
const running = new WeakMap<Db, Map<number, Promise<CheckNowRun>>>();

/** A check claimed and not finished within this long is taken for dead (its process stopped mid-way). */
const CLAIM_LAPSES_MS = 600_000;

/**
 * "Check now" (docs/guide/reconciliation.md): compares every holding address of the company's wallets on
 * every followed chain with the node, at once, and takes the second look of any drift it sees
 * `confirmDelayMs` later, so what it finds is announced (`reconciliation.drift`) before it answers.
 * A call while the company's check is under way in this process gets that same run (`joined`);
 * a new one claims its start in `reconciliation_check_now`, which refuses (429 `rate_limited`)
 * while another process's check runs or within `checkNowMinIntervalMs` of the last start, so no
 * two comparisons run at once and the node is not hammered. Up to `addressesPerRun` addresses per
 * chain, paced like the indexer's runs.
 */
export function checkNow(deps: CompareDeps, companyId: number): { run: Promise<CheckNowRun>; joined: boolean } {
  let companies = running.get(deps.db);
  if (!companies) {
    companies = new Map();
    running.set(deps.db, companies);
  }
  const under = companies.get(companyId);
  if (under) return { run: under, joined: true };
  const mine = companies;
  const run = (async () => {
    await claim(deps, companyId);
    try {
      return await compareCompany(deps, companyId);
    } finally {
      await deps.db('reconciliation_check_now').where({ company_id: companyId }).update({ finished_at: deps.db.fn.now() });
    }
  })().finally(() => mine.delete(companyId));
  companies.set(companyId, run);
  return { run, joined: false };
}

/** Claims the company's next check, or throws `rate_limited` saying when one may start. */
async function claim(deps: CompareDeps, companyId: number): Promise<void> {
  const minSeconds = deps.config.reconciliation.checkNowMinIntervalMs / 1000;
  const { rows } = (await deps.db.raw(
    `insert into reconciliation_check_now as c (company_id, started_at) values (:companyId, now())
     on conflict (company_id) do update set started_at = now(), finished_at = null
      where c.started_at <= now() - make_interval(secs => :minSeconds)
        and (c.finished_at is not null or c.started_at <= now() - make_interval(secs => :lapse))
     returning started_at`,
    { companyId, minSeconds, lapse: CLAIM_LAPSES_MS / 1000 },
  )) as { rows: unknown[] };
  if (rows.length > 0) return;
  const last = (await deps
    .db('reconciliation_check_now')
    .where({ company_id: companyId })
    .first(
      deps.db.raw('finished_at is null as busy'),
      deps.db.raw('ceil(extract(epoch from started_at + make_interval(secs => ?) - now()))::int as wait', [minSeconds]),
    )) as { busy: boolean; wait: number } | undefined;
  const wait = Math.max(1, last?.wait ?? 1);
  throw new BaseError(
    'rate_limited',
    last?.busy
      ? 'A check of this company is under way in another process; try again when it has finished'
      : `A check ran moments ago; the next may start in ${wait} seconds`,
    { details: { retryAfterSeconds: wait } },
  );
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
