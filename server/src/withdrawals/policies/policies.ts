import {
  type AddressingMode,
  BaseError,
  type Db,
  type PluginRegistry,
  POLICY_KINDS,
  type PolicyDecision,
  type PolicyKind,
  type SpendingPolicy,
  destinationForms,
  evaluatePolicies,
  parseBaseUnits,
} from '@walletd/core';
import type { Knex } from 'knex';
import { addressBookView } from '../addressBook/bookView';
import { type ResolvedIntent, totalAmount } from '../intent';

interface PolicyRow {
  id: number;
  company_id: number;
  name: string;
  kind: PolicyKind;
  params: Record<string, unknown>;
  wallet_ids: number[] | null;
  asset_key: string | null;
  enabled: boolean;
  created_at: Date;
}

export interface PolicyView extends SpendingPolicy {
  companyId: number;
  createdAt: string;
}

const toView = (r: PolicyRow): PolicyView => ({
  id: r.id,
  companyId: r.company_id,
  name: r.name,
  kind: r.kind,
  params: r.params,
  walletIds: r.wallet_ids,
  assetKey: r.asset_key,
  enabled: r.enabled,
  createdAt: r.created_at.toISOString(),
});

/** The company's policies, all of them (the engine applies the enabled ones that match; the CLI lists them). */
export async function loadPolicies(db: Db | Knex.Transaction, companyId: number): Promise<PolicyView[]> {
  return ((await db('spending_policies').where({ company_id: companyId }).orderBy('id')) as PolicyRow[]).map(toView);
}

export interface PolicyInput {
  companyId: number;
  name: string;
  kind: string;
  walletIds: number[] | null;
  assetKey: string | null;
  /** Destination lists for deny/allow; base-unit strings for the amount kinds. */
  addresses?: string[];
  /** The addresses' match forms (resolvePolicyAddresses): what destinations are compared with. */
  matchKeys?: string[];
  max?: bigint;
  threshold?: bigint;
  approvals?: number;
  /** approval_above: what its quorum does (unset: the deployment's `approvals.onApproval`). */
  onApproval?: 'send' | 'wait_for_send';
}

/** The stored `kind` and `params` for an input, checked per kind, so a policy that cannot be evaluated is never stored. */
function policyParams(input: PolicyInput): { kind: PolicyKind; params: Record<string, unknown> } {
  if (!(POLICY_KINDS as readonly string[]).includes(input.kind))
    throw new BaseError('validation_failed', `kind must be one of ${POLICY_KINDS.join(', ')}`);
  const kind = input.kind as PolicyKind;
  let params: Record<string, unknown>;
  switch (kind) {
    case 'deny_destinations':
    case 'allow_destinations':
      if (!input.addresses?.length) throw new BaseError('validation_failed', `${kind} needs at least one address (--addresses)`);
      params = { addresses: input.addresses, ...(input.matchKeys ? { matchKeys: input.matchKeys } : {}) };
      break;
    case 'address_book':
      // The entries are the list: kept in the address book, each with its cooling-off period.
      params = {};
      break;
    case 'max_per_transaction':
    case 'daily_volume':
      if (input.max === undefined) throw new BaseError('validation_failed', `${kind} needs a maximum (--max)`);
      params = { max: input.max.toString() };
      break;
    default:
      if (input.threshold === undefined) throw new BaseError('validation_failed', 'approval_above needs a threshold (--threshold)');
      if (input.approvals !== undefined && (!Number.isInteger(input.approvals) || input.approvals < 1 || input.approvals > 20))
        throw new BaseError('validation_failed', 'approvals must be an integer from 1 to 20');
      if (input.onApproval !== undefined && input.onApproval !== 'send' && input.onApproval !== 'wait_for_send')
        throw new BaseError('validation_failed', 'onApproval must be send or wait_for_send');
      params = {
        threshold: input.threshold.toString(),
        approvals: input.approvals ?? 1,
        ...(input.onApproval ? { onApproval: input.onApproval } : {}),
      };
  }
  if (kind !== 'deny_destinations' && kind !== 'allow_destinations' && kind !== 'address_book' && input.assetKey === null)
    throw new BaseError('validation_failed', `${kind} compares amounts, so it needs an asset (--asset)`);
  return { kind, params };
}

export async function addPolicy(db: Db, input: PolicyInput): Promise<PolicyView> {
  const { kind, params } = policyParams(input);
  const company = await db('companies').where({ id: input.companyId }).first('id');
  if (!company) throw new BaseError('not_found', `company ${input.companyId} not found`);
  const [row] = (await db('spending_policies')
    .insert({
      company_id: input.companyId,
      name: input.name,
      kind,
      params,
      wallet_ids: input.walletIds,
      asset_key: input.assetKey,
    })
    .returning('*')) as PolicyRow[];
  return toView(row as PolicyRow);
}

/** One policy of the company; another company's id is not found, as if it did not exist. */
export async function getPolicy(db: Db, companyId: number, id: number): Promise<PolicyView> {
  const row = (await db('spending_policies').where({ id, company_id: companyId }).first()) as PolicyRow | undefined;
  if (!row) throw new BaseError('not_found', `policy ${id} not found`);
  return toView(row);
}

/** Replaces a policy's rule (name, kind, scope, parameters) whole, checked as a new one is; `enabled` stays. */
export async function updatePolicy(db: Db, id: number, input: PolicyInput): Promise<PolicyView> {
  const { kind, params } = policyParams(input);
  const [row] = (await db('spending_policies')
    .where({ id, company_id: input.companyId })
    .update({ name: input.name, kind, params, wallet_ids: input.walletIds, asset_key: input.assetKey })
    .returning('*')) as PolicyRow[];
  if (!row) throw new BaseError('not_found', `policy ${id} not found`);
  return toView(row);
}

/** `companyId` scopes the change to one company (the console); the operator's CLI passed none. */
export async function setPolicyEnabled(db: Db, id: number, enabled: boolean, companyId?: number): Promise<PolicyView> {
  const [row] = (await db('spending_policies')
    .where({ id, ...(companyId === undefined ? {} : { company_id: companyId }) })
    .update({ enabled })
    .returning('*')) as PolicyRow[];
  if (!row) throw new BaseError('not_found', `policy ${id} not found`);
  return toView(row);
}

export async function removePolicy(db: Db, id: number): Promise<{ id: number; removed: true }> {
  const n = await db('spending_policies').where({ id }).delete();
  if (!n) throw new BaseError('not_found', `policy ${id} not found`);
  return { id, removed: true };
}

/**
 * Rolling 24 h outgoing volume of a wallet/asset: every withdrawal recorded in that time that
 * has not failed or been cancelled (prepared ones count: their amount is promised).
 */
export async function volume24h(db: Db | Knex.Transaction, walletId: number, assetKey: string): Promise<bigint> {
  const row = (await db('withdrawals')
    .where({ wallet_id: walletId, asset_key: assetKey })
    .whereNotIn('status', ['rejected', 'cancelled'])
    .andWhere('created_at', '>', db.raw("now() - interval '24 hours'"))
    .first(db.raw('coalesce(sum(amount), 0)::text as total'))) as { total: string };
  return parseBaseUnits(row.total);
}

/** How a chain addresses deposits (key-per-address or account-tag), as its plugin declares. */
export function addressingOf(plugins: PluginRegistry, chain: string): AddressingMode {
  return plugins.forChain(chain)?.chains.find((c) => c.chain === chain)?.addressing ?? 'key-per-address';
}

/** Each output's destination in the forms a policy list may name it by (XRP: `r…:tag` and `r…`). */
export function policyDestinations(addressing: AddressingMode, outputs: readonly { toKey: string; destinationTag?: number }[]): string[][] {
  return outputs.map((o) => destinationForms(addressing, o.toKey, o.destinationTag));
}

/**
 * The company's policies applied to one intent. `approvals`: null for a direct withdrawal, the
 * number of distinct approvals for one from a request.
 */
export async function decidePolicies(
  db: Db | Knex.Transaction,
  plugins: PluginRegistry,
  wallet: { id: number; company_id: number },
  intent: ResolvedIntent,
  approvals: number | null,
): Promise<PolicyDecision> {
  const [chain = '', network = ''] = intent.asset.key.split(':');
  const policies = await loadPolicies(db, wallet.company_id);
  return evaluatePolicies(policies, {
    walletId: wallet.id,
    assetKey: intent.asset.key,
    decimals: intent.asset.decimals,
    symbol: intent.asset.symbol,
    amount: totalAmount(intent),
    destinations: policyDestinations(addressingOf(plugins, chain), intent.outputs),
    volume24h: await volume24h(db, wallet.id, intent.asset.key),
    approvals,
    ...(policies.some((p) => p.kind === 'address_book' && p.enabled)
      ? { addressBook: await addressBookView(db, wallet.company_id, wallet.id, chain, network) }
      : {}),
  });
}
