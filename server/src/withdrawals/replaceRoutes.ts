import type { RequestHandler, Router } from 'express';
import { BaseError } from '@walletd/core';
import type { Common } from '../platform/context';
import type { Clock } from '../platform/clock';
import { checkBody } from '../http/body';
import { parseId } from '../http/scope';
import { requireMfaEnrolled, requireRoleAction } from '../members/sessions/memberGuards';
import { requireStepUp } from '../members/sessions/sessions';
import { replaceWithdrawal } from './replace';
import { toWithdrawalView } from './view';
import { walletNames } from '../wallets/transactionRoutes';
import { withdrawalPeople } from './withdrawalPeople';

/**
 * The console's speed-up and on-chain cancel of a stuck payout (issue 46):
 * `POST /console/api/withdrawals/:id/speed-up` and `/cancel-onchain`, the same operation and body as
 * the API's, for a member whose role may create withdrawals, with MFA, after a step-up (a fresh
 * code within `console.stepUpMs`: it spends more of the company's money on fees). Audited as the
 * member. Answers the withdrawal as the console's page shows it.
 */
export function mountReplaceRoutes(r: Router, common: Common, clock: Clock, session: RequestHandler): void {
  const { db } = common;
  const enrolled = requireMfaEnrolled(db);
  for (const [path, kind, what] of [
    ['speed-up', 'speed_up', 'speed up a withdrawal'],
    ['cancel-onchain', 'cancel', 'cancel a withdrawal on chain'],
  ] as const)
    r.post(`/withdrawals/:id/${path}`, session, enrolled, async (req, res) => {
      const s = req.memberSession!;
      requireRoleAction(s, 'withdrawals:create', what);
      requireStepUp(s, clock(), common.config.console.stepUpMs);
      const id = parseId(req.params.id, 'withdrawal id');
      const owned = await db('withdrawals as x')
        .join('wallets as wl', 'wl.id', 'x.wallet_id')
        .where({ 'x.id': id, 'x.company_id': s.companyId })
        .whereNull('wl.deleted_at')
        .first('x.id');
      if (!owned) throw new BaseError('not_found', `withdrawal ${id} not found`);
      const body = checkBody<{ maxFeePerGas?: string; maxFeeRate?: string; replaces?: string }>('WithdrawalReplaceRequest', req.body ?? {});
      const row = await replaceWithdrawal(common, id, {
        kind,
        keyId: null,
        actor: { type: 'member', id: s.memberId },
        ...(body.maxFeePerGas !== undefined ? { maxFeePerGas: BigInt(body.maxFeePerGas) } : {}),
        ...(body.maxFeeRate !== undefined ? { maxFeeRate: BigInt(body.maxFeeRate) } : {}),
        ...(body.replaces !== undefined ? { replaces: body.replaces } : {}),
      });
      const [names, people] = await Promise.all([walletNames(db, s.companyId), withdrawalPeople(db, [row])]);
      res.json({
        ...(await toWithdrawalView(db, common.plugins.chainTable(), row, true)),
        walletName: names.get(row.wallet_id) ?? null,
        ...(people.get(row.id) ?? { proposedBy: null, approvedBy: [] }),
      });
    });
}
