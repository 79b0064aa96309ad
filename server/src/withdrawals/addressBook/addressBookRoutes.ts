import type { ConsoleAddressBook, ConsoleAddressBookEntry, NoUndeclared, Undeclared } from '@walletd/schemas';
import type { RequestHandler, Router } from 'express';
import { BaseError } from '@walletd/core';
import type { Common } from '../../platform/context';
import { checkBody } from '../../http/body';
import {
  type BookActor,
  type EntryInput,
  addEntry,
  approveShorten,
  entryOf,
  listEntries,
  removeEntry,
  requestShorten,
  toEntryView,
  type EntryView,
} from './entries';
import type { Clock } from '../../platform/clock';
import { requireMfaEnrolled, requireRole, requireRoleAction } from '../../members/sessions/memberGuards';
import { requireStepUp } from '../../members/sessions/sessions';
import { walletNames } from '../../wallets/transactionRoutes';

const entryId = (v: unknown): number => {
  const id = Number(v);
  if (!Number.isSafeInteger(id) || id < 1 || id > 2_147_483_647) throw new BaseError('not_found', 'No such address book entry');
  return id;
};

/** The /v1 view is spread into the console's entry: a field it grows must be declared in the contract first. */
export type EntryViewDeclared = NoUndeclared<Undeclared<ConsoleAddressBookEntry, EntryView>>;

/**
 * The address book page (`/console/api/address-book`, issue 42 §7). Any member reads it; owners
 * and admins add and remove entries, each with a step-up. Ending an entry's cooling-off early
 * takes two people: an owner asks (step-up), and another owner or admin approves (step-up).
 * Everything is audited (`address_book.*`).
 */
export function mountAddressBookRoutes(r: Router, common: Common, clock: Clock, session: RequestHandler): void {
  const { db } = common;
  const stepUpMs = common.config.console.stepUpMs;
  const enrolled = requireMfaEnrolled(db);
  const who = (req: Parameters<RequestHandler>[0]): BookActor & { type: 'member' } => {
    const s = req.memberSession!;
    return { type: 'member', id: s.memberId, ip: req.ip ?? null, sessionId: s.id };
  };
  /** Owners and admins, with a fresh step-up, checked before the body is read. */
  const manage = (req: Parameters<RequestHandler>[0], what: string) => {
    const s = req.memberSession!;
    requireRoleAction(s, 'withdrawals:create', `${what}; owners and admins may`);
    requireStepUp(s, clock(), stepUpMs);
  };
  const shown = async (companyId: number, rows: Awaited<ReturnType<typeof listEntries>>): Promise<ConsoleAddressBookEntry[]> => {
    const names = await walletNames(db, companyId);
    return rows.map((row) => ({ ...toEntryView(row), walletName: row.wallet_id === null ? null : (names.get(row.wallet_id) ?? null) }));
  };

  r.get('/address-book', session, enrolled, async (req, res) => {
    const s = req.memberSession!;
    const book: ConsoleAddressBook = {
      data: await shown(s.companyId, await listEntries(db, s.companyId, null)),
      coolingOffMs: common.config.addressBook.coolingOffMs,
    };
    res.json(book);
  });

  r.post('/address-book', session, enrolled, async (req, res) => {
    manage(req, 'add address book entries');
    const body = checkBody<Omit<EntryInput, 'walletId'> & { walletId?: number | null }>('AddressBookEntryCreateRequest', req.body);
    const row = await addEntry(common, req.memberSession!.companyId, { ...body, walletId: body.walletId ?? null }, who(req));
    const [entry] = await shown(row.company_id, [row]);
    res.status(201).json(entry);
  });

  r.delete('/address-book/:id', session, enrolled, async (req, res) => {
    manage(req, 'remove address book entries');
    await removeEntry(db, req.memberSession!.companyId, entryId(req.params.id), who(req));
    res.status(204).end();
  });

  r.post('/address-book/:id/shorten', session, enrolled, async (req, res) => {
    const s = req.memberSession!;
    requireRole(s, ['owner'], 'ask to shorten a cooling-off period; owners may');
    requireStepUp(s, clock(), stepUpMs);
    const row = await requestShorten(db, s.companyId, entryId(req.params.id), who(req));
    res.json((await shown(s.companyId, [row]))[0]);
  });

  r.post('/address-book/:id/approve-shorten', session, enrolled, async (req, res) => {
    manage(req, 'approve shortening a cooling-off period');
    const s = req.memberSession!;
    await entryOf(db, s.companyId, entryId(req.params.id));
    const row = await approveShorten(db, s.companyId, entryId(req.params.id), who(req));
    res.json((await shown(s.companyId, [row]))[0]);
  });
}
