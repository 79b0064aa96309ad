import {
  type AssetRef,
  BaseError,
  type Db,
  POLICY_KINDS,
  type PluginRegistry,
  type WalletdConfig,
  isPublicError,
  toBaseUnits,
} from '@walletd/core';
import { resolvePolicyAsset } from './policyAsset';
import type { PolicyInput } from './policies';
import { resolvePolicyAddresses } from './policyAddresses';

/**
 * A policy as a person fills it in (the console's form, JSON): amounts in the asset's display
 * units as exact decimal strings, the asset as the API names it (key or symbol).
 */
export interface PolicyForm {
  name?: unknown;
  kind?: unknown;
  asset?: unknown;
  chain?: unknown;
  network?: unknown;
  walletIds?: unknown;
  addresses?: unknown;
  max?: unknown;
  threshold?: unknown;
  approvals?: unknown;
  onApproval?: unknown;
}

const invalid = (field: string, why: string): BaseError => new BaseError('validation_failed', `"${field}" ${why}`, { details: { field } });
/** A check's own words (an address, an asset) about one field. */
const about = (field: string, e: unknown): unknown =>
  isPublicError(e) ? new BaseError('validation_failed', `"${field}": ${e.message}`, { details: { field } }) : e;

const optionalText = (v: unknown, field: string): string | undefined => {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' || v.length > 200) throw invalid(field, 'must be a string of at most 200 characters');
  return v;
};

const AMOUNT = /^[0-9]+(\.[0-9]+)?$/;

/** A display-unit amount (never a JSON number: a float would round it) in the asset's base units. */
function amountField(v: unknown, field: string, asset: AssetRef | null): bigint | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' || !AMOUNT.test(v)) throw invalid(field, 'must be an exact decimal string such as "1.5"');
  if (!asset) throw invalid('asset', 'is needed to read amounts (they are in its display units)');
  try {
    return toBaseUnits(v, asset.decimals);
  } catch (e) {
    throw isPublicError(e) ? invalid(field, e.message.replace(/^amount /, '')) : e;
  }
}

/**
 * The form checked field by field and resolved as the CLI resolved it (asset by key or symbol,
 * addresses with the plugins' own validation on the asset's chain, wallets of this company): each
 * mistake is 400 validation_failed naming its field, before anything is stored.
 */
export async function policyInputFromForm(
  deps: { db: Db; config: WalletdConfig; plugins: PluginRegistry },
  companyId: number,
  form: PolicyForm,
): Promise<PolicyInput> {
  const name = optionalText(form.name, 'name')?.trim();
  if (!name) throw invalid('name', 'must be a non-empty string');
  const kind = form.kind;
  if (typeof kind !== 'string' || !(POLICY_KINDS as readonly string[]).includes(kind))
    throw invalid('kind', `must be one of ${POLICY_KINDS.join(', ')}`);
  const chain = optionalText(form.chain, 'chain');
  const network = optionalText(form.network, 'network');
  if (network !== undefined && chain === undefined) throw invalid('chain', 'is needed with "network"');
  const scope = { ...(chain ? { chain } : {}), ...(network ? { network } : {}) };

  const assetText = optionalText(form.asset, 'asset');
  let asset: AssetRef | null = null;
  if (assetText !== undefined) {
    try {
      asset = resolvePolicyAsset({ ...deps.config }, deps.plugins, assetText, scope);
    } catch (e) {
      throw about('asset', isPublicError(e) ? new BaseError(e.code, e.message.replace('--chain/--network', '"chain"/"network"')) : e);
    }
  }
  const listKind = kind === 'deny_destinations' || kind === 'allow_destinations';
  if (!listKind && kind !== 'address_book' && !asset)
    throw invalid('asset', `is needed: ${kind} compares amounts, which are read in the asset's units`);

  let walletIds: number[] | null = null;
  if (form.walletIds !== undefined && form.walletIds !== null) {
    const ids = form.walletIds;
    if (!Array.isArray(ids) || ids.length > 100 || !ids.every((w) => Number.isSafeInteger(w) && (w as number) > 0))
      throw invalid('walletIds', 'must be a list of wallet ids, or null for every wallet');
    const found = (await deps.db('wallets').where({ company_id: companyId }).whereIn('id', ids).pluck('id')) as number[];
    const missing = ids.find((w) => !found.includes(w as number));
    if (missing !== undefined) throw invalid('walletIds', `names wallet ${missing}, which this company does not have`);
    walletIds = ids.length ? [...new Set(ids as number[])] : null;
  }

  let destinations: { addresses: string[]; matchKeys: string[] } | undefined;
  if (listKind) {
    const list = form.addresses;
    if (!Array.isArray(list) || list.length === 0 || list.length > 1000 || !list.every((a) => typeof a === 'string' && a !== ''))
      throw invalid('addresses', 'must be a non-empty list of addresses');
    const [assetChain, assetNetwork] = asset ? asset.key.split(':') : [];
    try {
      destinations = resolvePolicyAddresses(deps.plugins, list as string[], asset ? { chain: assetChain, network: assetNetwork } : scope);
    } catch (e) {
      throw about('addresses', e);
    }
  }

  let approvals: number | undefined;
  if (kind === 'approval_above' && form.approvals !== undefined && form.approvals !== null) {
    if (!Number.isInteger(form.approvals) || (form.approvals as number) < 1 || (form.approvals as number) > 20)
      throw invalid('approvals', 'must be an integer from 1 to 20');
    approvals = form.approvals as number;
  }
  let onApproval: 'send' | 'wait_for_send' | undefined;
  if (kind === 'approval_above' && form.onApproval !== undefined && form.onApproval !== null && form.onApproval !== '') {
    if (form.onApproval !== 'send' && form.onApproval !== 'wait_for_send') throw invalid('onApproval', 'must be "send" or "wait_for_send"');
    onApproval = form.onApproval;
  }
  const max = kind === 'max_per_transaction' || kind === 'daily_volume' ? amountField(form.max, 'max', asset) : undefined;
  if ((kind === 'max_per_transaction' || kind === 'daily_volume') && max === undefined) throw invalid('max', `is needed for ${kind}`);
  const threshold = kind === 'approval_above' ? amountField(form.threshold, 'threshold', asset) : undefined;
  if (kind === 'approval_above' && threshold === undefined) throw invalid('threshold', 'is needed for approval_above');

  return {
    companyId,
    name,
    kind,
    walletIds,
    assetKey: asset?.key ?? null,
    ...(destinations ?? {}),
    max,
    threshold,
    approvals,
    onApproval,
  };
}
