import { fromBaseUnits, BaseError, type Db } from '@walletd/core';
import type { Common } from '../platform/context';
import type { WalletRow } from '../http/scope';
import { audit } from '../company/audit';
import { pooledFunds } from '../funds/requireFunds';
import { decidePolicies } from '../withdrawals/policies/policies';
import { resolveIntent } from '../withdrawals/intent';
import { type SweepRuleBody, type SweepRuleRow, checkTrigger, ruleAmount, ruleAsset } from './sweepRule';

/**
 * The destination as the chain writes it, refused when it is not an address of the chain (400) or
 * when a destination policy denies it (403 policy_denied: decided for the smallest amount, so only
 * deny/allow lists can refuse here; amount limits are decided at each sweep).
 */
async function checkedDestination(common: Common, wallet: WalletRow, asset: string, destination: string): Promise<string> {
  const intent = resolveIntent(common.config, common.plugins, wallet, { asset, toAddress: destination, amount: '1' });
  const smallest = { ...intent, outputs: intent.outputs.map((o) => ({ ...o, amount: 1n })) };
  const decision = await decidePolicies(common.db, common.plugins, wallet, smallest, null);
  if (decision.outcome === 'refuse' && decision.code === 'policy_denied')
    throw new BaseError('policy_denied', `sweep destination ${destination}: ${decision.message}`, {
      details: { policyIds: decision.policyIds },
    });
  return intent.outputs[0]?.to ?? destination;
}

/**
 * Whether the wallet's coins are pooled (UTXO): a sweep there is a consolidation, which needs the
 * plugin's `consolidate`, spends whole coins (no minLeft) and runs at a fee rate of its own.
 * feeRate belongs to those rules only.
 */
function checkPooled(common: Common, wallet: WalletRow, minLeft: bigint, feeRate: number | null | undefined): void {
  const plugin = common.plugins.forChain(wallet.chain);
  if (!plugin?.withdrawals) throw new BaseError('unprocessable', `withdrawals on ${wallet.chain} are not supported by this build`);
  if (!pooledFunds(plugin, wallet.chain)) {
    if (feeRate !== undefined && feeRate !== null)
      throw new BaseError('validation_failed', `feeRate goes with UTXO rules (a consolidation); ${wallet.chain} sets its own fees`);
    return;
  }
  if (!plugin.withdrawals.consolidate)
    throw new BaseError('unprocessable', `sweep rules on ${wallet.chain} need consolidation, which its plugin does not offer`);
  if (minLeft !== 0n)
    throw new BaseError('validation_failed', `minLeft must be "0" on ${wallet.chain}: a consolidation spends each address's coins whole`);
}

/** The daily gas cap in the chain's native base units (a positive amount), as stored. */
function gasCap(common: Common, wallet: WalletRow, text: string): string {
  return ruleAmount(text, common.plugins.chainTable().nativeAsset(wallet.chain, wallet.network), 'gasDailyCap', false).toString();
}

/** Who changes a rule: an API key (its id and the caller's IP), a console member, or walletd itself (null). */
export type RuleActor = null | { keyId: number; ip: string | null } | { memberId: number };

const actorOf = (by: RuleActor) =>
  by === null
    ? { actorType: 'system' as const, actorId: null }
    : 'keyId' in by
      ? { actorType: 'api_key' as const, actorId: by.keyId, ip: by.ip }
      : { actorType: 'member' as const, actorId: by.memberId };

export async function createSweepRule(common: Common, wallet: WalletRow, body: SweepRuleBody, by: RuleActor): Promise<SweepRuleRow> {
  const asset = resolveIntent(common.config, common.plugins, wallet, {
    asset: body.asset as string,
    toAddress: body.destination,
    amount: '1',
  }).asset;
  const destination = await checkedDestination(common, wallet, asset.key, body.destination as string);
  const threshold = ruleAmount(body.threshold as string, asset, 'threshold', false);
  const minLeft = ruleAmount(body.minLeft ?? '0', asset, 'minLeft', true);
  checkPooled(common, wallet, minLeft, body.feeRate);
  const trigger = body.trigger as SweepRuleRow['trigger'];
  const interval = body.intervalSeconds ?? null;
  checkTrigger(trigger, interval);
  const gasDailyCap = body.gasDailyCap ? gasCap(common, wallet, body.gasDailyCap) : null;
  return common.db.transaction(async (trx) => {
    const [row] = (await trx('sweep_rules')
      .insert({
        gas_daily_cap: gasDailyCap,
        fee_rate: body.feeRate ?? null,
        company_id: wallet.company_id,
        wallet_id: wallet.id,
        asset_key: asset.key,
        destination,
        threshold: threshold.toString(),
        min_left: minLeft.toString(),
        trigger,
        interval_seconds: interval,
        enabled: body.enabled ?? true,
        created_by_key: by !== null && 'keyId' in by ? by.keyId : null,
      })
      .returning('*')) as SweepRuleRow[];
    const rule = row as SweepRuleRow;
    await audit(trx, {
      companyId: wallet.company_id,
      ...actorOf(by),
      action: 'sweep_rule.created',
      targetType: 'sweep_rule',
      targetId: rule.id,
      details: {
        walletId: wallet.id,
        asset: asset.key,
        destination,
        // Display units, as the API takes them (rows written before kept base units).
        threshold: `${fromBaseUnits(BigInt(rule.threshold), asset.decimals)} ${asset.symbol}`,
        minLeft: `${fromBaseUnits(BigInt(rule.min_left), asset.decimals)} ${asset.symbol}`,
        trigger,
        gasDailyCap: body.gasDailyCap
          ? `${body.gasDailyCap} ${common.plugins.chainTable().nativeAsset(wallet.chain, wallet.network).symbol}`
          : null,
        feeRate: body.feeRate ?? null,
      },
    });
    return rule;
  });
}

export async function listSweepRules(db: Db, walletId: number): Promise<SweepRuleRow[]> {
  return (await db('sweep_rules').where({ wallet_id: walletId }).whereNull('deleted_at').orderBy('id')) as SweepRuleRow[];
}

export async function sweepRuleOf(db: Db, wallet: WalletRow, id: number): Promise<SweepRuleRow> {
  const row = (await db('sweep_rules').where({ id, wallet_id: wallet.id }).whereNull('deleted_at').first()) as SweepRuleRow | undefined;
  if (!row) throw new BaseError('not_found', `sweep rule ${id} not found on wallet ${wallet.id}`);
  return row;
}

/** The fields given replace the stored ones; the trigger and interval are checked together as they will be stored. */
export async function updateSweepRule(
  common: Common,
  wallet: WalletRow,
  rule: SweepRuleRow,
  body: SweepRuleBody,
  by: RuleActor,
): Promise<SweepRuleRow> {
  const asset = ruleAsset(common, wallet, rule.asset_key);
  const changes: Record<string, unknown> = {};
  if (body.destination !== undefined) changes.destination = await checkedDestination(common, wallet, asset.key, body.destination);
  if (body.threshold !== undefined) changes.threshold = ruleAmount(body.threshold, asset, 'threshold', false).toString();
  if (body.minLeft !== undefined) changes.min_left = ruleAmount(body.minLeft, asset, 'minLeft', true).toString();
  if (body.enabled !== undefined) changes.enabled = body.enabled;
  if (body.minLeft !== undefined || body.feeRate !== undefined)
    checkPooled(common, wallet, BigInt((changes.min_left as string | undefined) ?? rule.min_left), body.feeRate);
  if (body.feeRate !== undefined) changes.fee_rate = body.feeRate;
  if (body.gasDailyCap !== undefined) changes.gas_daily_cap = body.gasDailyCap === null ? null : gasCap(common, wallet, body.gasDailyCap);
  const trigger = body.trigger ?? rule.trigger;
  // Switching to the deposit trigger drops the interval; a new interval alone keeps the trigger.
  const interval = body.intervalSeconds ?? (trigger === 'deposit' ? null : rule.interval_seconds);
  checkTrigger(trigger, interval);
  Object.assign(changes, { trigger, interval_seconds: interval });
  // The run marker means a window under one trigger and a deposit id under the other (UTXO rules).
  if (trigger !== rule.trigger) changes.last_window = null;
  return common.db.transaction(async (trx) => {
    const [row] = (await trx('sweep_rules')
      .where({ id: rule.id })
      .update({ ...changes, updated_at: trx.fn.now() })
      .returning('*')) as SweepRuleRow[];
    await audit(trx, {
      companyId: wallet.company_id,
      ...actorOf(by),
      action: 'sweep_rule.updated',
      targetType: 'sweep_rule',
      targetId: rule.id,
      details: { ...body },
    });
    return row as SweepRuleRow;
  });
}

/** Kept as a row (withdrawals name it); no new sweep starts from it. */
export async function deleteSweepRule(common: Common, wallet: WalletRow, rule: SweepRuleRow, by: RuleActor): Promise<void> {
  await common.db.transaction(async (trx) => {
    await trx('sweep_rules').where({ id: rule.id }).update({ deleted_at: trx.fn.now(), enabled: false, updated_at: trx.fn.now() });
    await audit(trx, {
      companyId: wallet.company_id,
      ...actorOf(by),
      action: 'sweep_rule.deleted',
      targetType: 'sweep_rule',
      targetId: rule.id,
    });
  });
}
