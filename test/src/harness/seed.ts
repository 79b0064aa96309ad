import { ALL_ACTIONS, type Action, type Db, type Role } from '@walletd/core';
import { addMember, createApiKey, createCompany } from '@walletd/server';

export interface Seeded {
  companyId: number;
  ownerId: number;
  /** A key with every action on every wallet. */
  rootKey: string;
}

export async function seedCompany(db: Db, plan: 'none' | 'free' | 'paid' = 'paid', name = 'Acme'): Promise<Seeded> {
  const company = await createCompany(db, { name, plan });
  const owner = await addMember(db, { companyId: company.id, email: `owner-${company.id}@example.com`, role: 'owner' });
  const { key } = await createApiKey(db, { companyId: company.id, createdBy: owner.id, actions: [...ALL_ACTIONS], walletIds: null });
  return { companyId: company.id, ownerId: owner.id, rootKey: key };
}

export async function keyFor(
  db: Db,
  companyId: number,
  opts: { actions: Action[]; walletIds?: number[] | null; role?: Role; createdBy?: number; allowIps?: string[]; expiresInMs?: number },
): Promise<{ key: string; id: number; memberId: number }> {
  let memberId = opts.createdBy;
  if (memberId === undefined) {
    const m = await addMember(db, { companyId, email: `m-${Math.random().toString(36).slice(2)}@example.com`, role: opts.role ?? 'admin' });
    memberId = m.id;
  }
  const { key, record } = await createApiKey(db, {
    companyId,
    createdBy: memberId,
    actions: opts.actions,
    walletIds: opts.walletIds ?? null,
    allowIps: opts.allowIps ?? null,
    expiresInMs: opts.expiresInMs ?? null,
  });
  return { key, id: record.id, memberId };
}

/**
 * A devnet EVM wallet with one watched address, written straight to the tables: the indexer's
 * store tests need the rows a deposit is matched to, not keys. Returns the wallet's id.
 */
export async function seedWatchedAddress(db: Db, companyId: number, address: string, name = 'w'): Promise<number> {
  const [wallet] = await db('wallets')
    .insert({ company_id: companyId, name, chain: 'ethereum', network: 'devnet', secret_envelope: {} })
    .returning('id');
  await db('addresses').insert({
    company_id: companyId,
    wallet_id: wallet.id,
    chain: 'ethereum',
    network: 'devnet',
    address,
    match_key: address,
    derivation_index: 0,
    derivation_path: "m/44'/60'/0'/0/0",
  });
  return wallet.id as number;
}

let credits = 0;

/**
 * A confirmed deposit recorded as the indexer records one, for tests whose node is a double that
 * no indexer follows: the funds ledger counts only what was credited, so a withdrawal needs it.
 */
export async function creditAddress(db: Db, address: { id: number; address: string }, assetKey: string, amount: bigint): Promise<void> {
  const row = await db('addresses as a')
    .join('wallets as w', 'w.id', 'a.wallet_id')
    .where('a.id', address.id)
    .first('a.wallet_id', 'w.company_id', 'a.chain', 'a.network');
  credits += 1;
  const txHash = `credit-${process.pid}-${credits}`;
  await db('transfers').insert({
    company_id: row.company_id,
    wallet_id: row.wallet_id,
    address_id: address.id,
    chain: row.chain,
    network: row.network,
    tx_hash: txHash,
    tx_key: txHash,
    event_index: 0,
    direction: 'incoming',
    event_type: 'native_transfer',
    asset_key: assetKey,
    amount: amount.toString(),
    to_address: address.address,
    block_number: 1,
    status: 'confirmed',
    confirmations: 100,
  });
}
