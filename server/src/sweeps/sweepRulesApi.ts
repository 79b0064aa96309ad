import { type RequestHandler, Router } from 'express';
import type { Common } from '../platform/context';
import { checkBody } from '../http/body';
import { auth, parseId, walletFor } from '../http/scope';
import {
  type SweepRuleBody,
  createSweepRule,
  deleteSweepRule,
  listSweepRules,
  ruleAsset,
  sweepRuleOf,
  toSweepRuleView,
  updateSweepRule,
} from './index';
import type { SweepRuleRow } from './sweepRule';

/**
 * Sweep rules of a wallet (docs/guide/sweeps-and-gas.md). Writing one moves funds later without a person, so
 * it takes what a withdrawal takes (`withdrawals:create`); reading takes `withdrawals:read`.
 * Registered on `r`: the app passes its one /v1 router.
 */
export function sweepRulesRouter(common: Common, writeLimit: RequestHandler, r: Router = Router()): Router {
  const { db } = common;
  const view = (wallet: { chain: string; network: string }, row: SweepRuleRow) =>
    toSweepRuleView(row, ruleAsset(common, wallet, row.asset_key), common.plugins.chainTable().nativeAsset(wallet.chain, wallet.network));

  r.post('/wallets/:id/sweep-rules', writeLimit, async (req, res) => {
    const a = auth(req);
    const wallet = await walletFor(db, a, req.params.id, ['withdrawals:create']);
    const body = checkBody<SweepRuleBody>('SweepRuleCreateRequest', req.body);
    const row = await createSweepRule(common, wallet, body, { keyId: a.keyId, ip: req.ip ?? null });
    res.status(201).location(`/v1/wallets/${wallet.id}/sweep-rules/${row.id}`).json(view(wallet, row));
  });

  r.get('/wallets/:id/sweep-rules', async (req, res) => {
    const wallet = await walletFor(db, auth(req), req.params.id, ['withdrawals:read']);
    res.json({ rules: (await listSweepRules(db, wallet.id)).map((row) => view(wallet, row)) });
  });

  r.get('/wallets/:id/sweep-rules/:ruleId', async (req, res) => {
    const wallet = await walletFor(db, auth(req), req.params.id, ['withdrawals:read']);
    res.json(view(wallet, await sweepRuleOf(db, wallet, parseId(req.params.ruleId, 'sweep rule id'))));
  });

  r.patch('/wallets/:id/sweep-rules/:ruleId', writeLimit, async (req, res) => {
    const a = auth(req);
    const wallet = await walletFor(db, a, req.params.id, ['withdrawals:create']);
    const rule = await sweepRuleOf(db, wallet, parseId(req.params.ruleId, 'sweep rule id'));
    const body = checkBody<SweepRuleBody>('SweepRuleUpdateRequest', req.body);
    res.json(view(wallet, await updateSweepRule(common, wallet, rule, body, { keyId: a.keyId, ip: req.ip ?? null })));
  });

  r.delete('/wallets/:id/sweep-rules/:ruleId', writeLimit, async (req, res) => {
    const a = auth(req);
    const wallet = await walletFor(db, a, req.params.id, ['withdrawals:create']);
    const rule = await sweepRuleOf(db, wallet, parseId(req.params.ruleId, 'sweep rule id'));
    await deleteSweepRule(common, wallet, rule, { keyId: a.keyId, ip: req.ip ?? null });
    res.status(204).end();
  });
  return r;
}
