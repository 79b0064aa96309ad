import type { ConsoleTransaction, ConsoleTransactionPage, NoUndeclared, Undeclared } from '@walletd/schemas';
import type { RequestHandler, Router } from 'express';
import { BaseError, type Db } from '@walletd/core';
import { type Common, historyReads } from '../platform/context';
import { parseId } from '../http/scope';
import { listTransactions } from './transactionList';
import { requireMfaEnrolled } from '../members/sessions/memberGuards';

/** A hash or an address in any chain's text form (hex, base58, bech32, SS58, TON's raw and user-friendly forms). */
const SEARCH = /^[0-9A-Za-z:_\-+/=]{16,130}$/;

/** A wallet of the member's company (archived ones are gone), else 404 exactly like a missing one. */
async function companyWallet(db: Db, companyId: number, raw: unknown): Promise<number> {
  const id = parseId(raw, 'walletId');
  const found = await db('wallets').where({ id, company_id: companyId }).whereNull('deleted_at').first('id');
  if (!found) throw new BaseError('not_found', 'Wallet not found');
  return id;
}

/** The company's wallet names by id: rows show a name, not an id. */
export async function walletNames(db: Db, companyId: number): Promise<Map<number, string>> {
  const rows = (await db('wallets').where({ company_id: companyId }).select('id', 'name')) as { id: number; name: string }[];
  return new Map(rows.map((w) => [w.id, w.name]));
}

type ListedTransaction = Awaited<ReturnType<typeof listTransactions>>['transactions'][number];
/** The list's row and page are spread into the answer: a field they grow must be declared in the contract first. */
export type TransactionRowDeclared = NoUndeclared<Undeclared<ConsoleTransaction, ListedTransaction>>;
export type TransactionPageDeclared = NoUndeclared<Undeclared<ConsoleTransactionPage, Awaited<ReturnType<typeof listTransactions>>>>;

/**
 * Transactions on chain (`/console/api/transactions`): deposits and withdrawals of the member's
 * company through the service `GET /v1/transactions` uses (same rows, same keyset cursor), with a
 * search box that takes a hash or an address. Any member of the company may read.
 */
export function mountTransactionRoutes(r: Router, common: Common, session: RequestHandler): void {
  const { db, config, plugins } = common;
  const reads = historyReads(common);
  const enrolled = requireMfaEnrolled(db);

  r.get('/transactions', session, enrolled, async (req, res) => {
    const s = req.memberSession!;
    const { q, walletId, after, limit = '50' } = req.query as Record<string, unknown>;
    if (typeof limit !== 'string' || !/^[0-9]{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > 200)
      throw new BaseError('validation_failed', 'limit must be an integer from 1 to 200');
    if (q !== undefined && (typeof q !== 'string' || !SEARCH.test(q.trim())))
      throw new BaseError('validation_failed', 'q must be a transaction hash or an address');
    if (after !== undefined && typeof after !== 'string')
      throw new BaseError('validation_failed', 'after must be the `next` of a previous page');
    const wallet = walletId === undefined ? undefined : await companyWallet(db, s.companyId, walletId);
    const page = await reads.run((rdb) =>
      listTransactions(rdb, config, plugins, {
        companyId: s.companyId,
        walletIds: null,
        walletId: wallet,
        hashOrAddress: typeof q === 'string' ? q.trim() : undefined,
        after,
        limit: Number(limit),
      }),
    );
    const names = await walletNames(db, s.companyId);
    const answer: ConsoleTransactionPage = {
      ...page,
      transactions: page.transactions.map((t) => ({ ...t, walletName: names.get(t.walletId) ?? null })),
    };
    res.json(answer);
  });

  // One deposit with its lifecycle: the list's own row (found through its hash) and the moments the
  // transfer row records. Withdrawals have their own page with their history.
  r.get('/transactions/deposits/:id', session, enrolled, async (req, res) => {
    const s = req.memberSession!;
    const id = parseId(req.params.id, 'deposit id');
    const t = (await db('transfers as t')
      .join('wallets as w', 'w.id', 't.wallet_id')
      .where({ 't.id': id, 't.company_id': s.companyId })
      .whereNull('w.deleted_at')
      .first('t.tx_hash', 't.status', 't.reason', 't.block_number', 't.created_at', 't.updated_at')) as
      | { tx_hash: string; status: string; reason: string | null; block_number: string | null; created_at: Date; updated_at: Date }
      | undefined;
    if (!t) throw new BaseError('not_found', `deposit ${id} not found`);
    const { transactions } = await reads.run((rdb) =>
      listTransactions(rdb, config, plugins, { companyId: s.companyId, walletIds: null, hashOrAddress: t.tx_hash, limit: 200 }),
    );
    const row = transactions.find((x) => x.kind === 'deposit' && x.id === id);
    if (!row) throw new BaseError('not_found', `deposit ${id} not found`);
    const lifecycle: { state: string; at: string; detail?: string }[] = [
      { state: 'detected', at: t.created_at.toISOString(), ...(t.block_number ? { detail: `in block ${t.block_number}` } : {}) },
    ];
    if (t.status === 'confirmed') lifecycle.push({ state: 'confirmed', at: t.updated_at.toISOString() });
    // Pending with a reason: held, never confirmed by itself (a token balance that did not move by its log).
    if (t.status === 'pending' && t.reason) lifecycle.push({ state: 'held', at: t.updated_at.toISOString(), detail: t.reason });
    if (t.status === 'rejected') lifecycle.push({ state: 'retracted', at: t.updated_at.toISOString(), detail: t.reason ?? undefined });
    const names = await walletNames(db, s.companyId);
    res.json({ ...row, walletName: names.get(row.walletId) ?? null, lifecycle });
  });
}
