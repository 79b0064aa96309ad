import type { RequestHandler, Router } from 'express';
import { BaseError, type WithdrawalRow } from '@walletd/core';
import { type ConsoleWithdrawal, type ConsoleWithdrawalPage, WITHDRAWAL_STATUSES } from '@walletd/schemas';
import type { Common } from '../platform/context';
import { parseId } from '../http/scope';
import { toWithdrawalView } from './view';
import { requireMfaEnrolled } from '../members/sessions/memberGuards';
import { walletNames } from '../wallets/transactionRoutes';
import { withdrawalPeople } from './withdrawalPeople';
import { keyHeldSources } from './keyHeldSources';

/** The kinds a withdrawal is (the console's filter): a payout, or what a sweep rule or the gas station started. */
const WITHDRAWAL_KINDS: readonly ConsoleWithdrawal['kind'][] = ['payout', 'sweep', 'gas_topup'];

/**
 * Withdrawals (`/console/api/withdrawals`): every withdrawal of the member's company, newest first,
 * in the API's view (`GET /v1/withdrawals/:id`) plus the wallet's name and who proposed and
 * approved it; one withdrawal with its history. Any member of the company may read.
 */
export function mountWithdrawalRoutes(r: Router, common: Common, session: RequestHandler): void {
  const { db } = common;
  const enrolled = requireMfaEnrolled(db);

  const present = async (companyId: number, rows: WithdrawalRow[], withHistory: boolean): Promise<ConsoleWithdrawal[]> => {
    const [names, people, held] = await Promise.all([walletNames(db, companyId), withdrawalPeople(db, rows), keyHeldSources(db, rows)]);
    return Promise.all(
      rows.map(async (w) => ({
        ...(await toWithdrawalView(db, common.plugins.chainTable(), w, withHistory)),
        walletName: names.get(w.wallet_id) ?? null,
        ...(people.get(w.id) ?? { proposedBy: null, approvedBy: [] }),
        ...(held.has(w.id) ? { fromKeyHeldIn: held.get(w.id) } : {}),
      })),
    );
  };

  r.get('/withdrawals', session, enrolled, async (req, res) => {
    const s = req.memberSession!;
    const { walletId, status, kind, after, limit = '50' } = req.query as Record<string, unknown>;
    if (typeof limit !== 'string' || !/^[0-9]{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > 100)
      throw new BaseError('validation_failed', 'limit must be an integer from 1 to 100');
    const q = db('withdrawals as x')
      .join('wallets as wl', 'wl.id', 'x.wallet_id')
      .where({ 'x.company_id': s.companyId })
      .whereNull('wl.deleted_at')
      .orderBy('x.id', 'desc')
      .limit(Number(limit))
      .select('x.*');
    if (walletId !== undefined) q.andWhere('x.wallet_id', parseId(walletId, 'walletId'));
    if (status !== undefined) {
      if (typeof status !== 'string' || !(WITHDRAWAL_STATUSES as readonly string[]).includes(status))
        throw new BaseError('validation_failed', `status must be one of ${WITHDRAWAL_STATUSES.join(', ')}`);
      q.andWhere('x.status', status);
    }
    if (kind !== undefined) {
      if (typeof kind !== 'string' || !(WITHDRAWAL_KINDS as readonly string[]).includes(kind))
        throw new BaseError('validation_failed', `kind must be one of ${WITHDRAWAL_KINDS.join(', ')}`);
      q.andWhere('x.kind', kind);
    }
    if (after !== undefined) q.andWhere('x.id', '<', parseId(after, 'after'));
    const rows = (await q) as WithdrawalRow[];
    const last = rows[rows.length - 1];
    const page: ConsoleWithdrawalPage = {
      withdrawals: await present(s.companyId, rows, false),
      next: rows.length === Number(limit) && last ? String(last.id) : null,
    };
    res.json(page);
  });

  r.get('/withdrawals/:id', session, enrolled, async (req, res) => {
    const s = req.memberSession!;
    const id = parseId(req.params.id, 'withdrawal id');
    const row = (await db('withdrawals as x')
      .join('wallets as wl', 'wl.id', 'x.wallet_id')
      .where({ 'x.id': id, 'x.company_id': s.companyId })
      .whereNull('wl.deleted_at')
      .first('x.*')) as WithdrawalRow | undefined;
    if (!row) throw new BaseError('not_found', `withdrawal ${id} not found`);
    const [view] = await present(s.companyId, [row], true);
    res.json(view);
  });
}
