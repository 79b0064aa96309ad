import { BaseError, type Chain, type Db } from '@walletd/core';
import type { Common } from '../../platform/context';
import { refusePaddedAddress } from '../addressText';
import { audit } from '../../company/audit';

export interface EntryRow {
  id: number;
  company_id: number;
  wallet_id: number | null;
  chain: string;
  network: string;
  name: string;
  address: string;
  match_key: string;
  created_by_member: number | null;
  created_by_key: number | null;
  created_at: Date;
  usable_from: Date;
  shorten_requested_by: number | null;
  shorten_requested_at: Date | null;
  shortened_by: number | null;
  shortened_at: Date | null;
  /** Computed by the database's clock when read. */
  usable: boolean;
}

export interface EntryView {
  id: number;
  walletId: number | null;
  chain: string;
  network: string;
  name: string;
  address: string;
  status: 'cooling_off' | 'usable';
  createdAt: string;
  usableFrom: string;
  createdByMember: number | null;
  createdByKey: number | null;
  shortenRequestedBy: number | null;
  shortenedBy: number | null;
}

/** Who changes the book: a member in the console (with where from) or an API key. */
export type BookActor = { type: 'member'; id: number; ip: string | null; sessionId: number } | { type: 'api_key'; id: number };

export const toEntryView = (r: EntryRow): EntryView => ({
  id: r.id,
  walletId: r.wallet_id,
  chain: r.chain,
  network: r.network,
  name: r.name,
  address: r.address,
  status: r.usable ? 'usable' : 'cooling_off',
  createdAt: r.created_at.toISOString(),
  usableFrom: r.usable_from.toISOString(),
  createdByMember: r.created_by_member,
  createdByKey: r.created_by_key,
  shortenRequestedBy: r.shorten_requested_by,
  shortenedBy: r.shortened_by,
});

// Bidirectional overrides and control characters would let a name display as another one.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this refuses.
const UNSAFE_NAME = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const live = (db: Db, companyId: number) =>
  db('address_book_entries').where({ company_id: companyId }).whereNull('removed_at').select('*', db.raw('usable_from <= now() as usable'));

/** The live entries of a company; `walletIds` (a scoped key) keeps the company-wide ones and its wallets' own. */
export async function listEntries(db: Db, companyId: number, walletIds: ReadonlySet<number> | null): Promise<EntryRow[]> {
  const q = live(db, companyId).orderBy('id');
  if (walletIds !== null) q.andWhere((w) => w.whereNull('wallet_id').orWhereIn('wallet_id', [...walletIds]));
  return (await q) as EntryRow[];
}

export async function entryOf(db: Db, companyId: number, id: number): Promise<EntryRow> {
  const row = (await live(db, companyId).andWhere({ id }).first()) as EntryRow | undefined;
  if (!row) throw new BaseError('not_found', `address book entry ${id} not found`);
  return row;
}

const auditBook = (db: Db, companyId: number, actor: BookActor, action: string, id: number, details: Record<string, unknown>) =>
  audit(db, {
    companyId,
    actorType: actor.type,
    actorId: actor.id,
    action: `address_book.${action}`,
    targetType: 'address_book_entry',
    targetId: id,
    ip: actor.type === 'member' ? actor.ip : null,
    details: actor.type === 'member' ? { ...details, sessionId: actor.sessionId } : details,
  });

export interface EntryInput {
  name: string;
  chain: string;
  network: string;
  address: string;
  walletId: number | null;
}

/**
 * A new named destination, checked by the chain's plugin and stored in its display form (EIP-55
 * on EVM) beside its match form. It can receive only after `addressBook.coolingOffMs` (database
 * time): a stolen key or session that adds a drain address cannot pay it the same hour.
 */
export async function addEntry(common: Common, companyId: number, input: EntryInput, actor: BookActor): Promise<EntryRow> {
  const { db, plugins, config } = common;
  const name = input.name.trim();
  if (!name || name.length > 100 || UNSAFE_NAME.test(name))
    throw new BaseError('validation_failed', '"name" must be 1 to 100 characters without control or bidirectional characters');
  const plugin = plugins.forChain(input.chain);
  const served = plugin?.chains.find((c) => c.chain === input.chain)?.networks.some((n) => n.network === input.network);
  if (!plugin || !served) throw new BaseError('unprocessable', `no loaded chain plugin serves ${input.chain}/${input.network}`);
  if (input.walletId !== null) {
    const wallet = (await db('wallets')
      .where({ id: input.walletId, company_id: companyId })
      .whereNull('deleted_at')
      .first('chain', 'network')) as { chain: string; network: string } | undefined;
    if (!wallet) throw new BaseError('not_found', `wallet ${input.walletId} not found`);
    if (wallet.chain !== input.chain || wallet.network !== input.network)
      throw new BaseError(
        'validation_failed',
        `wallet ${input.walletId} is on ${wallet.chain}/${wallet.network}, not ${input.chain}/${input.network}`,
      );
  }
  refusePaddedAddress(input.address, 'address');
  const chain = input.chain as Chain;
  if (!plugin.validateAddress(chain, input.network, input.address))
    throw new BaseError('invalid_address', `"${input.address}" is not a valid address on ${input.chain}/${input.network}`);
  const matchKey = plugin.matchKey(chain, input.network, input.address).toLowerCase();
  const [inserted] = (await db('address_book_entries')
    .insert({
      company_id: companyId,
      wallet_id: input.walletId,
      chain: input.chain,
      network: input.network,
      name,
      address: plugin.formatAddress(chain, input.network, input.address),
      match_key: matchKey,
      created_by_member: actor.type === 'member' ? actor.id : null,
      created_by_key: actor.type === 'api_key' ? actor.id : null,
      usable_from: db.raw('now() + make_interval(secs => ?)', [config.addressBook.coolingOffMs / 1000]),
    })
    .onConflict(db.raw('(company_id, coalesce(wallet_id, 0), chain, network, match_key) where removed_at is null'))
    .ignore()
    .returning('id')) as { id: number }[];
  if (!inserted) throw new BaseError('conflict', `${input.address} is already in the address book for this scope`);
  const row = await entryOf(db, companyId, inserted.id);
  await auditBook(db, companyId, actor, 'added', row.id, {
    name,
    address: row.address,
    chain: row.chain,
    network: row.network,
    walletId: row.wallet_id,
    usableFrom: row.usable_from.toISOString(),
  });
  return row;
}

export async function removeEntry(db: Db, companyId: number, id: number, actor: BookActor): Promise<void> {
  const row = await entryOf(db, companyId, id);
  await db('address_book_entries').where({ id }).update({ removed_at: db.fn.now() });
  await auditBook(db, companyId, actor, 'removed', id, { name: row.name, address: row.address });
}

/** An owner asks to end an entry's cooling-off now; a second member must approve it. */
export async function requestShorten(db: Db, companyId: number, id: number, actor: BookActor & { type: 'member' }): Promise<EntryRow> {
  const row = await entryOf(db, companyId, id);
  if (row.usable) throw new BaseError('conflict', `address book entry ${id} can already receive`);
  await db('address_book_entries').where({ id }).update({ shorten_requested_by: actor.id, shorten_requested_at: db.fn.now() });
  await auditBook(db, companyId, actor, 'shorten_requested', id, { name: row.name, address: row.address });
  return entryOf(db, companyId, id);
}

/** A second member (not the one who asked) approves: the entry can receive from now on. */
export async function approveShorten(db: Db, companyId: number, id: number, actor: BookActor & { type: 'member' }): Promise<EntryRow> {
  const row = await entryOf(db, companyId, id);
  if (row.usable) throw new BaseError('conflict', `address book entry ${id} can already receive`);
  if (row.shorten_requested_by === null)
    throw new BaseError('conflict', `no owner has asked to shorten the cooling-off of address book entry ${id}`);
  if (row.shorten_requested_by === actor.id)
    throw new BaseError('forbidden', 'you asked to shorten this cooling-off: a second member has to approve it');
  await db('address_book_entries').where({ id }).update({ usable_from: db.fn.now(), shortened_by: actor.id, shortened_at: db.fn.now() });
  await auditBook(db, companyId, actor, 'shortened', id, {
    name: row.name,
    address: row.address,
    requestedBy: row.shorten_requested_by,
    wasUsableFrom: row.usable_from.toISOString(),
  });
  return entryOf(db, companyId, id);
}
