import { type Action, BaseError } from '@walletd/core';
import type { WithdrawalRow } from '@walletd/core';
import { WITHDRAWAL_STATUSES } from '@walletd/schemas';
import { type RequestHandler, Router } from 'express';
import type { Common } from '../platform/context';
import type { AuthContext } from '../http/authContext';
import { checkBody } from '../http/body';
import { auth, keySeesWallet, parseId, requireGlobal, walletFor } from '../http/scope';
import { checkedIntent } from './checkedIntent';
import type { IntentBody } from './intent';
import { prepareWithdrawal } from './prepare';
import { type RequestRow, toRequestView } from './requests/requestView';
import { listRequests, proposeWithdrawal } from './requests/requests';
import { broadcastWithdrawal, cancelWithdrawal } from './broadcast';
import { acceptSigned, signWithdrawal } from './send';
import { replaceWithdrawal } from './replace';
import { toWithdrawalView } from './view';
import { indexedHeights } from '../wallets/liveConfirmations';

/**
 * Withdrawals (prepare → sign → broadcast, tracked to confirmed or rejected) and withdrawal
 * requests (proposals people approve). Value-moving writes share the 20/min per key and
 * endpoint limit (spec 8).
 * Registered on `r`: the app passes its one /v1 router (a nested router costs every request a pass).
 */
export function withdrawalsRouter(common: Common, writeLimit: RequestHandler, r: Router = Router()): Router {
  const { db, plugins } = common;

  /** The withdrawal if the key sees its wallet (404 otherwise, like a wallet), then the action (403). */
  async function withdrawalFor(a: AuthContext, raw: unknown, actions: readonly Action[]): Promise<WithdrawalRow> {
    const id = parseId(raw, 'withdrawal id');
    const row = (await db('withdrawals').where({ id, company_id: a.companyId }).first()) as WithdrawalRow | undefined;
    if (!row || !keySeesWallet(a, row.wallet_id)) throw new BaseError('not_found', 'Withdrawal not found');
    await walletFor(db, a, String(row.wallet_id), actions);
    return row;
  }

  r.post('/wallets/:id/withdrawals', writeLimit, async (req, res) => {
    const a = auth(req);
    const wallet = await walletFor(db, a, req.params.id, ['withdrawals:create']);
    const body = checkBody<IntentBody & { idempotencyKey: string }>('WithdrawalPrepareRequest', req.body);
    const intent = await checkedIntent(common, wallet, body);
    const { row, replayed } = await prepareWithdrawal(common, wallet, {
      intent,
      idempotencyKey: body.idempotencyKey,
      keyId: a.keyId,
      request: null,
    });
    if (replayed) res.setHeader('Idempotent-Replayed', 'true');
    res
      .status(replayed ? 200 : 201)
      .location(`/v1/withdrawals/${row.id}`)
      .json(await toWithdrawalView(db, common.plugins.chainTable(), row));
  });

  r.get('/wallets/:id/withdrawals', async (req, res) => {
    const wallet = await walletFor(db, auth(req), req.params.id, ['withdrawals:read']);
    const { status, after, limit = '50' } = req.query as Record<string, unknown>;
    if (typeof limit !== 'string' || !/^[0-9]{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > 100)
      throw new BaseError('validation_failed', 'limit must be an integer from 1 to 100');
    const q = db('withdrawals').where({ wallet_id: wallet.id }).orderBy('id', 'desc').limit(Number(limit));
    if (status !== undefined) {
      if (typeof status !== 'string' || !(WITHDRAWAL_STATUSES as readonly string[]).includes(status))
        throw new BaseError('validation_failed', `status must be one of ${WITHDRAWAL_STATUSES.join(', ')}`);
      q.andWhere({ status });
    }
    if (after !== undefined) q.andWhere('id', '<', parseId(after, 'after'));
    const rows = (await q) as WithdrawalRow[];
    const last = rows[rows.length - 1];
    const heights = await indexedHeights(db, rows);
    res.json({
      withdrawals: await Promise.all(rows.map((w) => toWithdrawalView(db, common.plugins.chainTable(), w, false, heights))),
      next: rows.length === Number(limit) && last ? String(last.id) : null,
    });
  });

  r.get('/withdrawals/:id', async (req, res) => {
    const row = await withdrawalFor(auth(req), req.params.id, ['withdrawals:read']);
    res.json(await toWithdrawalView(db, common.plugins.chainTable(), row, true));
  });

  r.post('/withdrawals/:id/sign', writeLimit, async (req, res) => {
    const a = auth(req);
    const row = await withdrawalFor(a, req.params.id, ['withdrawals:create']);
    checkBody('WithdrawalSignRequest', req.body);
    res.json(await toWithdrawalView(db, common.plugins.chainTable(), await signWithdrawal(common, row.id, a.keyId, req.ip ?? null)));
  });

  r.post('/withdrawals/:id/broadcast', writeLimit, async (req, res) => {
    const a = auth(req);
    const row = await withdrawalFor(a, req.params.id, ['withdrawals:create']);
    const { signedTransaction } = checkBody<{ signedTransaction?: string }>('WithdrawalBroadcastRequest', req.body);
    if (signedTransaction !== undefined) await acceptSigned(common, row.id, signedTransaction, a.keyId, req.ip ?? null);
    else if (row.status === 'prepared') await signWithdrawal(common, row.id, a.keyId, req.ip ?? null);
    res.json(await toWithdrawalView(db, common.plugins.chainTable(), await broadcastWithdrawal(common, row.id)));
  });

  r.post('/withdrawals/:id/cancel', writeLimit, async (req, res) => {
    const row = await withdrawalFor(auth(req), req.params.id, ['withdrawals:create']);
    res.json(await toWithdrawalView(db, common.plugins.chainTable(), await cancelWithdrawal(common, row.id)));
  });

  // Issue 46: a broadcast payout stuck on its nonce, replaced by a faster one or a zero-value cancel.
  for (const [path, kind] of [
    ['speed-up', 'speed_up'],
    ['cancel-onchain', 'cancel'],
  ] as const)
    r.post(`/withdrawals/:id/${path}`, writeLimit, async (req, res) => {
      const a = auth(req);
      const row = await withdrawalFor(a, req.params.id, ['withdrawals:create']);
      const body = checkBody<{ maxFeePerGas?: string; maxFeeRate?: string; replaces?: string }>('WithdrawalReplaceRequest', req.body ?? {});
      const replaced = await replaceWithdrawal(common, row.id, {
        kind,
        keyId: a.keyId,
        ...(body.maxFeePerGas !== undefined ? { maxFeePerGas: BigInt(body.maxFeePerGas) } : {}),
        ...(body.maxFeeRate !== undefined ? { maxFeeRate: BigInt(body.maxFeeRate) } : {}),
        ...(body.replaces !== undefined ? { replaces: body.replaces } : {}),
      });
      res.json(await toWithdrawalView(db, common.plugins.chainTable(), replaced, true));
    });

  r.post('/withdrawal-requests', writeLimit, async (req, res) => {
    const a = auth(req);
    const body = checkBody<IntentBody & { walletId: number; note?: string; idempotencyKey?: string }>(
      'WithdrawalRequestCreateRequest',
      req.body,
    );
    const wallet = await walletFor(db, a, String(body.walletId), ['withdrawal_requests:create']);
    const { walletId: _w, note, idempotencyKey, ...intentBody } = body;
    const { row, replayed } = await proposeWithdrawal(db, plugins, wallet, {
      intent: await checkedIntent(common, wallet, intentBody),
      note: note ?? null,
      idempotencyKey: idempotencyKey ?? null,
      keyId: a.keyId,
      memberId: a.creator?.memberId ?? null,
    });
    if (replayed) res.setHeader('Idempotent-Replayed', 'true');
    res
      .status(replayed ? 200 : 201)
      .location(`/v1/withdrawal-requests/${row.id}`)
      .json(await toRequestView(db, row));
  });

  r.get('/withdrawal-requests', async (req, res) => {
    const a = auth(req);
    requireGlobal(a, 'withdrawals:read');
    const { status } = req.query as Record<string, unknown>;
    if (status !== undefined && !['pending', 'approved', 'rejected', 'expired'].includes(String(status)))
      throw new BaseError('validation_failed', 'status must be pending, approved, rejected or expired');
    const rows = await listRequests(db, a.companyId, a.walletIds, status === undefined ? undefined : String(status));
    res.json({ requests: await Promise.all(rows.map((x) => toRequestView(db, x))) });
  });

  r.get('/withdrawal-requests/:id', async (req, res) => {
    const a = auth(req);
    const id = parseId(req.params.id, 'request id');
    const row = (await db('withdrawal_requests').where({ id, company_id: a.companyId }).first()) as RequestRow | undefined;
    if (!row || !keySeesWallet(a, row.wallet_id)) throw new BaseError('not_found', 'Withdrawal request not found');
    await walletFor(db, a, String(row.wallet_id), ['withdrawals:read', 'withdrawal_requests:create']);
    res.json(await toRequestView(db, row));
  });

  return r;
}
