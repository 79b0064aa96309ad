import { type AssetRef, type Chain, type WithdrawalRow, isPublicError } from '@walletd/core';
import type { Common } from '../platform/context';
import type { WalletRow } from '../http/scope';
import { type SweepRuleRow, ruleAsset } from './sweepRule';
import { pooledFunds } from '../funds/requireFunds';
import { consolidationRun } from './consolidationRun';
import { carryOn, sweepSource } from './sweepSource';

/** Between two runner ticks (the indexer leading the chain runs them). */
export const SWEEP_TICK_MS = 15_000;
/** Source addresses that reach the node per chain and run; the rest wait for the next tick. */
export const SWEEPS_PER_RUN = 25;

export interface SweepRunSummary {
  rules: number;
  sent: number;
  awaitingApproval: number;
  failed: number;
  /** Gas top-ups sent from the station (each token sweep it pays waits for it to confirm). */
  toppedUp: number;
  /** The budget ran out: some addresses wait for the next tick. */
  truncated: boolean;
}

interface Budget {
  left: number;
}

/** The run window: a schedule's interval number, so the keys of one window are the same on every retry. */
export const windowOf = (rule: Pick<SweepRuleRow, 'interval_seconds'>, nowMs: number): bigint =>
  BigInt(Math.floor(nowMs / ((rule.interval_seconds ?? 60) * 1000)));

/**
 * Each deposit address of the wallet other than the destination, with the part of its key that
 * names the run: the schedule window, or (deposit trigger) the latest confirmed deposit of the
 * asset there, so a new deposit opens a new run and nothing else does. A deposit in a month taken
 * out by `walletd archive-month` counts by the id recorded as it left (ids only grow).
 */
async function sources(common: Common, wallet: WalletRow, rule: SweepRuleRow, nowMs: number): Promise<{ address: string; run: string }[]> {
  const plugin = common.plugins.forChain(wallet.chain);
  const match = (a: string) => plugin?.matchKey(wallet.chain as Chain, wallet.network, a) ?? a;
  const rows = (await common
    .db('addresses as a')
    .where({ 'a.wallet_id': wallet.id, 'a.kind': 'deposit' })
    .whereNull('a.destination_tag')
    .orderBy('a.derivation_index')
    .select('a.address')
    .select(
      common.db.raw(
        `greatest((select max(t.id) from transfers t where t.address_id = a.id and t.asset_key = ? and t.direction = 'incoming' and t.status = 'confirmed'),
                  (select max(x.last_confirmed_id) from archived_transfer_totals x
                    where x.wallet_id = a.wallet_id and x.address = a.address and x.asset_key = ?)) as last_deposit`,
        [rule.asset_key, rule.asset_key],
      ),
    )) as { address: string; last_deposit: string | null }[];
  const dest = match(rule.destination);
  return rows
    .filter((r) => match(r.address) !== dest && r.last_deposit !== null)
    .map((r) => ({ address: r.address, run: rule.trigger === 'schedule' ? `w${windowOf(rule, nowMs)}` : `d${r.last_deposit}` }));
}

/** The latest confirmed deposit of the asset to any of the wallet's deposit addresses (a UTXO rule's run), archived months included. */
async function lastDeposit(common: Common, walletId: number, assetKey: string): Promise<bigint | null> {
  const { rows } = await common.db.raw(
    `select greatest(
       (select max(t.id) from transfers t join addresses a on a.id = t.address_id
         where a.wallet_id = :wallet and a.kind = 'deposit' and t.asset_key = :asset and t.direction = 'incoming' and t.status = 'confirmed'),
       (select max(x.last_confirmed_id) from archived_transfer_totals x
          join addresses a on a.wallet_id = x.wallet_id and a.address = x.address
         where x.wallet_id = :wallet and a.kind = 'deposit' and x.asset_key = :asset)) as id`,
    { wallet: walletId, asset: assetKey },
  );
  const id = rows[0]?.id as string | number | null | undefined;
  return id === null || id === undefined ? null : BigInt(id);
}

/** One rule: its unfinished sweeps first (a crash, an approved request), then each source due. */
async function runRule(common: Common, rule: SweepRuleRow, nowMs: number, budget: Budget, sum: SweepRunSummary): Promise<void> {
  const { db, logger } = common;
  const log = logger.child({ sweepRuleId: rule.id, walletId: rule.wallet_id });
  const wallet = (await db('wallets').where({ id: rule.wallet_id }).first()) as WalletRow;
  const errors: string[] = [];
  const unfinished = (await db('withdrawals')
    .where({ sweep_rule_id: rule.id })
    .whereIn('status', ['prepared', 'signed'])
    .orderBy('id')) as WithdrawalRow[];
  for (const row of unfinished) {
    if (budget.left-- <= 0) break;
    try {
      await carryOn(common, row);
      log.info({ withdrawalId: row.id }, 'sweep resumed and sent');
    } catch (e) {
      errors.push(`withdrawal ${row.id}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const window = rule.trigger === 'schedule' ? windowOf(rule, nowMs) : null;
  const due = window === null || rule.last_window === null || BigInt(rule.last_window) < window;
  let complete = true;
  // A token taken out of the chain's allow-list sweeps (and tops up) nothing: the rule says why.
  let asset: AssetRef | null = null;
  if (due) {
    try {
      asset = ruleAsset(common, wallet, rule.asset_key);
    } catch (e) {
      errors.push(e instanceof Error ? e.message : String(e));
    }
  }
  const plugin = common.plugins.forChain(wallet.chain);
  let mark: bigint | null = window;
  if (asset && plugin && pooledFunds(plugin, wallet.chain)) {
    // UTXO: one consolidation per run. The deposit trigger's run is the wallet's latest deposit,
    // stored once the run is done, so the node is asked again only after a new one.
    const last = window === null ? await lastDeposit(common, wallet.id, rule.asset_key) : null;
    mark = window ?? last;
    const run =
      window === null
        ? last === null || (rule.last_window !== null && BigInt(rule.last_window) >= last)
          ? null
          : `d${last}`
        : `w${window}`;
    if (run !== null) {
      try {
        const out = await consolidationRun(common, wallet, rule, asset, run, budget);
        sum.sent += out.sent;
        sum.awaitingApproval += out.awaitingApproval;
        complete = out.done || out.awaitingApproval > 0;
        if (out.sent) log.info({ run, parts: out.sent }, 'consolidation sent');
      } catch (e) {
        complete = false;
        sum.failed++;
        const message = e instanceof Error ? e.message : String(e);
        errors.push(`consolidation: ${message}`);
        if (isPublicError(e)) log.warn({ code: e.code }, `consolidation not made: ${message}`);
        else log.error({ err: e }, 'consolidation failed');
      }
    } else complete = false;
  } else if (asset) {
    for (const s of await sources(common, wallet, rule, nowMs)) {
      if (budget.left <= 0) {
        complete = false;
        sum.truncated = true;
        break;
      }
      const key = `sweep:${rule.id}:${s.run}:${s.address}`;
      try {
        const out = await sweepSource(common, wallet, rule, asset, s.address, key, s.run);
        if (out.status === 'below_threshold' || out.status === 'settled') continue;
        budget.left--;
        if (out.status === 'awaiting_gas') {
          // The window stays open: the sweep goes at a later tick of it, once the top-up confirms.
          complete = false;
          if (out.sent) sum.toppedUp++;
          log.info({ address: s.address, topUpId: out.topUpId }, out.sent ? 'gas top-up sent' : 'sweep waits for its gas top-up');
        } else if (out.status === 'sent') {
          if (!out.replayed) sum.sent++;
          log.info({ address: s.address, withdrawalId: out.withdrawalId }, 'sweep sent');
        } else {
          sum.awaitingApproval++;
          log.info({ address: s.address, requestId: out.requestId }, 'sweep awaits approval (a spending policy asks for it)');
        }
      } catch (e) {
        budget.left--;
        sum.failed++;
        const message = e instanceof Error ? e.message : String(e);
        errors.push(`${s.address}: ${message}`);
        // A refusal (funds, policy) is the rule's to show; anything else is also ours to see.
        if (isPublicError(e)) log.warn({ address: s.address, code: e.code }, `sweep not made: ${message}`);
        else log.error({ err: e, address: s.address }, 'sweep failed');
      }
    }
  }
  await db('sweep_rules')
    .where({ id: rule.id })
    .update({
      last_run_at: db.fn.now(),
      last_error: errors.length ? errors.join('; ').slice(0, 2000) : null,
      ...(due && complete && mark !== null ? { last_window: mark.toString() } : {}),
    });
}

/**
 * One run over the enabled rules of a chain's wallets, at most SWEEPS_PER_RUN addresses reaching
 * the node. Called by the indexer that leads the chain (one process per chain, `chainLease`), so
 * two runners never race for the same window; the idempotency keys cover a crash mid-run anyway.
 */
export async function runSweeps(
  common: Common,
  key: { chain: string; network: string },
  shouldStop: () => boolean = () => false,
  nowMs = Date.now(),
): Promise<SweepRunSummary> {
  const rules = (await common
    .db('sweep_rules as r')
    .join('wallets as w', 'w.id', 'r.wallet_id')
    .where({ 'w.chain': key.chain, 'w.network': key.network, 'r.enabled': true })
    .whereNull('r.deleted_at')
    .whereNull('w.deleted_at')
    .orderBy('r.id')
    .select('r.*')) as SweepRuleRow[];
  const sum: SweepRunSummary = { rules: rules.length, sent: 0, awaitingApproval: 0, failed: 0, toppedUp: 0, truncated: false };
  const budget = { left: SWEEPS_PER_RUN };
  for (const rule of rules) {
    if (shouldStop() || budget.left <= 0) {
      sum.truncated = sum.truncated || budget.left <= 0;
      break;
    }
    await runRule(common, rule, nowMs, budget, sum);
  }
  if (sum.sent || sum.awaitingApproval || sum.failed || sum.toppedUp || sum.truncated) common.logger.info({ ...key, ...sum }, 'sweep run');
  return sum;
}
