import { BaseError, apiKeyHint, generateApiKey, hashApiKey, parseCidr, type Action, type Db } from '@walletd/core';

export interface ApiKeyRecord {
  id: number;
  companyId: number;
  hint: string;
  name: string | null;
  actions: string[];
  walletIds: number[] | '*';
  allowIps: string[] | null;
  createdBy: number | null;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  createdAt: string;
}

interface KeyRow {
  id: number;
  company_id: number;
  hint: string;
  name: string | null;
  actions: string[];
  wallet_ids: number[] | null;
  allow_ips: string[] | null;
  created_by: number | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

const toRecord = (r: KeyRow): ApiKeyRecord => ({
  id: r.id,
  companyId: r.company_id,
  hint: r.hint,
  name: r.name,
  actions: r.actions,
  walletIds: r.wallet_ids ?? '*',
  allowIps: r.allow_ips,
  createdBy: r.created_by,
  expiresAt: iso(r.expires_at),
  revokedAt: iso(r.revoked_at),
  lastUsedAt: iso(r.last_used_at),
  createdAt: r.created_at.toISOString(),
});

/** "90d", "12h", "30m", "2w" -> milliseconds. */
export function parseDuration(text: string): number {
  const m = /^([1-9][0-9]*)([smhdw])$/.exec(text.trim());
  if (!m) throw new BaseError('validation_failed', `"${text}" is not a duration like 30m, 12h, 90d or 2w`);
  const unit = { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 604800e3 }[m[2] as 's' | 'm' | 'h' | 'd' | 'w'];
  return Number(m[1]) * unit;
}

export interface CreateKeyInput {
  companyId: number;
  createdBy?: number | null;
  name?: string | null;
  actions: Action[];
  /** null: every wallet, including later ones. */
  walletIds: number[] | null;
  allowIps?: string[] | null;
  expiresInMs?: number | null;
}

/** Returns the key in clear exactly once; only its hash is stored. */
export async function createApiKey(db: Db, input: CreateKeyInput): Promise<{ key: string; record: ApiKeyRecord }> {
  const company = await db('companies').where({ id: input.companyId }).first('id');
  if (!company) throw new BaseError('not_found', `company ${input.companyId} does not exist`);
  let createdBy = input.createdBy ?? null;
  if (createdBy === null) {
    // Keys are capped by their creator's role; default to the company's first owner.
    const owner = await db('members')
      .where({ company_id: input.companyId, role: 'owner' })
      .whereNull('removed_at')
      .orderBy('id')
      .first('id');
    if (!owner) throw new BaseError('validation_failed', `company ${input.companyId} has no owner; pass --created-by MEMBER`);
    createdBy = owner.id as number;
  } else {
    const member = await db('members').where({ id: createdBy, company_id: input.companyId }).whereNull('removed_at').first('id');
    if (!member) throw new BaseError('validation_failed', `member ${createdBy} is not an active member of company ${input.companyId}`);
  }
  if (input.walletIds) {
    const found = await db('wallets').where({ company_id: input.companyId }).whereIn('id', input.walletIds).pluck('id');
    const missing = input.walletIds.filter((id) => !found.includes(id));
    if (missing.length)
      throw new BaseError('validation_failed', `wallet(s) ${missing.join(', ')} do not belong to company ${input.companyId}`);
  }
  const allowIps = input.allowIps?.length
    ? input.allowIps.map((c) => {
        try {
          const [addr, bits] = parseCidr(c);
          return `${addr.toString()}/${bits}`;
        } catch (e) {
          throw new BaseError('validation_failed', (e as Error).message);
        }
      })
    : null;
  const key = generateApiKey();
  const [row] = await db('api_keys')
    .insert({
      company_id: input.companyId,
      key_hash: hashApiKey(key),
      hint: apiKeyHint(key),
      name: input.name ?? null,
      actions: input.actions,
      wallet_ids: input.walletIds,
      allow_ips: allowIps,
      created_by: createdBy,
      expires_at: input.expiresInMs ? new Date(Date.now() + input.expiresInMs) : null,
    })
    .returning('*');
  return { key, record: toRecord(row as KeyRow) };
}

export async function listApiKeys(db: Db, companyId: number): Promise<ApiKeyRecord[]> {
  const rows = (await db('api_keys').where({ company_id: companyId }).orderBy('id')) as KeyRow[];
  return rows.map(toRecord);
}

/** Immediate: the next request with the key answers 401. */
export async function revokeApiKey(db: Db, id: number): Promise<ApiKeyRecord> {
  const [row] = await db('api_keys')
    .where({ id })
    .update({ revoked_at: db.raw('coalesce(revoked_at, now())') })
    .returning('*');
  if (!row) throw new BaseError('not_found', `API key ${id} does not exist`);
  return toRecord(row as KeyRow);
}
