import { BaseError, type Db } from '@walletd/core';
import type { ConsoleGasStation, ConsoleSweepRule, ConsoleSweeps, NoUndeclared, Undeclared, WalletSweeps } from '@walletd/schemas';
import type { RequestHandler, Router } from 'express';
import type { Common } from '../platform/context';
import { checkBody } from '../http/body';
import { type WalletRow, parseId } from '../http/scope';
import { pooledFunds } from '../funds/requireFunds';
import { gasStationOf, refuseNoGasStation } from './gasStation/gasStation';
import { type GasStationView, gasStationView } from './gasStation/gasStationView';
import {
  type SweepRuleBody,
  type SweepRuleView,
  createSweepRule,
  listSweepRules,
  ruleAsset,
  sweepRuleOf,
  toSweepRuleView,
  updateSweepRule,
} from './index';
import type { Clock } from '../platform/clock';
import { requireMfaEnrolled, requireRoleAction } from '../members/sessions/memberGuards';
import { requireStepUp } from '../members/sessions/sessions';

/** The API's views go into the console's answer whole: a field they grow must be declared in the contract first. */
export type SweepViewsDeclared = NoUndeclared<Undeclared<ConsoleSweepRule, SweepRuleView> | Undeclared<ConsoleGasStation, GasStationView>>;

async function companyWallet(db: Db, companyId: number, raw: unknown): Promise<WalletRow> {
  const wallet = (await db('wallets')
    .where({ id: parseId(raw, 'wallet id'), company_id: companyId })
    .whereNull('deleted_at')
    .first()) as WalletRow | undefined;
  if (!wallet) throw new BaseError('not_found', 'No such wallet');
  return wallet;
}

/**
 * Sweep rules and gas stations (`/console/api/sweeps`, docs/guide/sweeps-and-gas.md): what the API's
 * `/v1/wallets/:id/sweep-rules` and `/gas-station` do, for a signed-in member. Reading takes a
 * role with `withdrawals:read`; creating, enabling and disabling a rule moves funds later without
 * a person, so it takes `withdrawals:create`, an enrolled authenticator and a step-up, and is
 * audited under the member. A station is shown (and so created) only for a wallet with a rule.
 */
export function mountSweepRoutes(r: Router, common: Common, clock: Clock, session: RequestHandler): void {
  const { db } = common;
  const enrolled = requireMfaEnrolled(db);
  const view = (wallet: WalletRow, row: Parameters<typeof toSweepRuleView>[0]) =>
    toSweepRuleView(row, ruleAsset(common, wallet, row.asset_key), common.plugins.chainTable().nativeAsset(wallet.chain, wallet.network));

  const stationOf = async (wallet: WalletRow, rules: SweepRuleView[]) => {
    try {
      refuseNoGasStation(common, wallet);
    } catch {
      return { station: null, stationError: null };
    }
    if (!rules.length && !(await gasStationOf(common, wallet.id))) return { station: null, stationError: null };
    try {
      return { station: await gasStationView(common, wallet), stationError: null };
    } catch (e) {
      return { station: null, stationError: e instanceof Error ? e.message : String(e) };
    }
  };

  r.get('/sweeps', session, enrolled, async (req, res) => {
    const s = req.memberSession!;
    requireRoleAction(s, 'withdrawals:read', 'see sweep rules');
    const wallets = (await db('wallets')
      .where({ company_id: s.companyId })
      .whereNull('deleted_at')
      .orderBy('id')
      .limit(200)) as (WalletRow & {
      name: string;
    })[];
    const out: WalletSweeps[] = [];
    for (const w of wallets) {
      const rules = (await listSweepRules(db, w.id)).map((row) => view(w, row));
      const plugin = common.plugins.forChain(w.chain);
      const consolidates = plugin !== undefined && pooledFunds(plugin, w.chain) && plugin.withdrawals?.consolidate !== undefined;
      out.push({ id: w.id, name: w.name, chain: w.chain, network: w.network, consolidates, rules, ...(await stationOf(w, rules)) });
    }
    const answer: ConsoleSweeps = { wallets: out };
    res.json(answer);
  });

  /** Who may change rules, checked before the body is read. */
  const manager: RequestHandler = (req, _res, next) => {
    try {
      const s = req.memberSession!;
      requireRoleAction(s, 'withdrawals:create', 'change sweep rules');
      requireStepUp(s, clock(), common.config.console.stepUpMs);
      next();
    } catch (e) {
      next(e);
    }
  };

  r.post('/wallets/:id/sweep-rules', session, enrolled, manager, async (req, res) => {
    const s = req.memberSession!;
    const wallet = await companyWallet(db, s.companyId, req.params.id);
    const body = checkBody<SweepRuleBody>('SweepRuleCreateRequest', req.body ?? {});
    res.status(201).json(view(wallet, await createSweepRule(common, wallet, body, { memberId: s.memberId })));
  });

  for (const [verb, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    r.post(`/wallets/:id/sweep-rules/:ruleId/${verb}`, session, enrolled, manager, async (req, res) => {
      const s = req.memberSession!;
      const wallet = await companyWallet(db, s.companyId, req.params.id);
      const rule = await sweepRuleOf(db, wallet, parseId(req.params.ruleId, 'sweep rule id'));
      res.json(view(wallet, await updateSweepRule(common, wallet, rule, { enabled }, { memberId: s.memberId })));
    });
  }
}
