import {
  fromBaseUnits,
  InvariantError,
  BaseError,
  type Chain,
  NodeUnavailableError,
  type PolicyDecision,
  type UnsignedWithdrawal,
  isPublicError,
} from '@walletd/core';
import { type WithdrawalRow, addHistory, storedUnsigned, unsignedFromRow } from '@walletd/core';
import type { Knex } from 'knex';
import type { Common } from '../platform/context';
import type { WalletRow } from '../http/scope';
import { audit } from '../company/audit';
import { decidePolicies } from './policies/policies';
import { type ChainAccess, type ResolvedIntent, chainAccess, checkCapabilities, intentHash, memoFields, totalAmount } from './intent';
import { ownedSource } from './ownedSource';
import { ensureChangeAddress } from './changeAddress';
import { lockWalletFunds } from '../funds/ledger';
import { pooledFunds, requireFunds } from '../funds/requireFunds';
import { internalOutputs } from './internalOutputs';
import { requireQuorum } from './requests/countVotes';

export interface PrepareInput {
  intent: ResolvedIntent;
  idempotencyKey: string | null;
  /** The API key that asked (null from the admin CLI). */
  keyId: number | null;
  /** Set when the withdrawal comes from an approved request, with its distinct approvals. */
  request: { id: number; approvals: number; reopened?: number } | null;
  /** Set when a sweep rule makes it: recorded as kind 'sweep' with the rule (sweeps/). */
  sweepRuleId?: number | null;
  /** With sweepRuleId: 'gas_topup' when the gas station pays a source the fee of the rule's token sweep. */
  kind?: 'sweep' | 'gas_topup';
  /** A transaction already built for the intent (a UTXO consolidation: `consolidate` chose its coins). */
  built?: UnsignedWithdrawal;
  /**
   * Who may pay the fee after the source (Solana's fee payer), instead of the wallet's other
   * addresses: a sweep names only the gas station, so a treasury address never pays for it.
   */
  feePayers?: string[];
}

export interface Prepared {
  row: WithdrawalRow;
  /** true when an earlier call with the same idempotency key and body made it. */
  replayed: boolean;
}

/**
 * The address that pays: `fromAddress` when given (it must be the wallet's), otherwise the
 * wallet address with the largest indexed balance of the asset (ties: the lowest index, so the
 * primary address first). Funds stay where they were deposited; nothing is swept first.
 */
async function chooseSource(db: Knex, wallet: WalletRow, intent: ResolvedIntent): Promise<{ address: string; index: number }> {
  if (intent.from) return ownedSource(db, wallet.id, intent.from);
  // Account-tag chains: every tagged deposit address is the one account, which pays.
  const account = (await db('addresses').where({ wallet_id: wallet.id, kind: 'account' }).first('address', 'derivation_index')) as
    | { address: string; derivation_index: number }
    | undefined;
  if (account) return { address: account.address, index: account.derivation_index };
  // The address's ledger row (fees aside: the choice only has to find the address with room;
  // `requireFunds` decides exactly under the wallet's lock). Not a sum over its transfers: that
  // grows with history and misses a month taken out by `walletd archive-month`.
  const { rows } = await db.raw(
    `select a.address, a.derivation_index,
        coalesce((select l.available from balance_ledger l
                   where l.wallet_id = a.wallet_id and l.address = a.address and l.asset_key = :asset), 0) as available
       from addresses a where a.wallet_id = :wallet and a.kind = 'deposit'
      order by available desc, a.derivation_index asc limit 1`,
    { asset: intent.asset.key, wallet: wallet.id },
  );
  const best = rows[0] as { address: string; derivation_index: number } | undefined;
  if (!best) throw new BaseError('unprocessable', `wallet ${wallet.id} has no address yet; generate one and fund it first`);
  return { address: best.address, index: best.derivation_index };
}

async function walletAddresses(db: Knex, walletId: number): Promise<{ address: string; derivation_index: number }[]> {
  return (await db('addresses')
    .where({ wallet_id: walletId })
    .whereIn('kind', ['deposit', 'change', 'account', 'gas_station'])
    .whereNull('destination_tag')
    .orderBy('derivation_index')
    .select('address', 'derivation_index')) as {
    address: string;
    derivation_index: number;
  }[];
}

/** The derivation index of each address a transaction spends from (what signing needs). */
export async function indexesOf(db: Knex, walletId: number, addresses: string[]): Promise<number[]> {
  const byAddress = new Map((await walletAddresses(db, walletId)).map((a) => [a.address, a.derivation_index]));
  return addresses.map((a) => {
    const index = byAddress.get(a);
    if (index === undefined) throw new InvariantError(`${a} is not an address of wallet ${walletId}`);
    return index;
  });
}

/** Signed, not yet final withdrawals of the wallet: the plugin keeps clear of their nonces or inputs. */
export async function inFlight(db: Knex, walletId: number, exceptId?: number): Promise<UnsignedWithdrawal[]> {
  const q = db('withdrawals').where({ wallet_id: walletId }).whereIn('status', ['signed', 'broadcast']);
  if (exceptId !== undefined) q.andWhereNot({ id: exceptId });
  return ((await q) as WithdrawalRow[]).map(unsignedFromRow);
}

/**
 * Runs a plugin verb against the node; what is not the caller's mistake (a 409/422 the plugin
 * mapped from the node's refusal) is a 502 naming the chain, never the node (`NodeUnavailableError`:
 * the node's own words and address stay in its cause, for the log).
 */
export async function onNode<T>(chain: string, network: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw nodeFailure(chain, network, e);
  }
}

/** A plugin verb's failure as the API shows it: the caller's refusals as they are, node failures as a 502 naming the chain. */
export function nodeFailure(chain: string, network: string, e: unknown): BaseError {
  if (e instanceof NodeUnavailableError || (isPublicError(e) && e.code !== 'node_error')) return e;
  return new NodeUnavailableError(chain, network, e);
}

function refuseByPolicy(decision: PolicyDecision): void {
  if (decision.outcome === 'refuse') {
    throw new BaseError(decision.code, decision.message, { details: { policyIds: decision.policyIds } });
  }
}

async function findByKey(db: Knex, companyId: number, key: string): Promise<WithdrawalRow | undefined> {
  return (await db('withdrawals').where({ company_id: companyId, idempotency_key: key }).first()) as WithdrawalRow | undefined;
}

function replayOrConflict(existing: WithdrawalRow, hash: string): Prepared {
  if (existing.intent_hash !== hash)
    throw new BaseError(
      'idempotency_conflict',
      `idempotencyKey "${existing.idempotency_key}" was already used for a withdrawal with a different body; use a new key for a new withdrawal`,
    );
  return { row: existing, replayed: true };
}

/**
 * Prepare: intent → policy → the plugin's `build` (nonce or inputs, fee bound, funds check) →
 * a `prepared` withdrawal that reserves its amount and fee cap. A refusal (policy, funds, address)
 * records nothing. The policy is decided twice: before touching the node, and again under the
 * wallet's funds lock right before the row is written, together with the funds check against what
 * the wallet's other in-flight withdrawals hold: two concurrent withdrawals cannot both fit a
 * daily limit, or funds, meant for one.
 */
export async function prepareWithdrawal(common: Common, wallet: WalletRow, input: PrepareInput): Promise<Prepared> {
  const { db, config, plugins } = common;
  const access: ChainAccess = chainAccess(config, plugins, wallet.chain, wallet.network);
  const { intent } = input;
  const hash = intentHash(wallet.id, intent);
  if (input.idempotencyKey) {
    const existing = await findByKey(db, wallet.company_id, input.idempotencyKey);
    if (existing) return replayOrConflict(existing, hash);
  }
  // Again here: a request proposed before memos were checked must not lose its memo at approval.
  checkCapabilities(access.plugin, wallet.chain, wallet.network, intent.outputs);
  const amount = totalAmount(intent);
  const decide = (trx: Knex) => decidePolicies(trx, plugins, wallet, intent, input.request ? input.request.approvals : null);
  refuseByPolicy(await decide(db));

  const source = await chooseSource(db, wallet, intent);
  const change = await ensureChangeAddress(db, common.masterKey, access.plugin, wallet);
  const reader = access.readers.readerFor(access.settings);
  const unsigned =
    input.built ??
    (await onNode(wallet.chain, wallet.network, async () =>
      access.verbs.build(
        {
          chain: wallet.chain as Chain,
          network: wallet.network,
          asset: intent.asset,
          outputs: intent.outputs.map((o) => ({ to: o.to, amount: o.amount, ...memoFields(o) })),
          // The chosen address first (it pays on account chains), then the wallet's other addresses
          // in derivation order, change addresses included (UTXO coin selection).
          sources: [
            source.address,
            ...(input.feePayers ?? (await walletAddresses(db, wallet.id)).map((a) => a.address)).filter((a) => a !== source.address),
          ],
          ...(change ? { change } : {}),
        },
        reader,
        { inFlight: await inFlight(db, wallet.id) },
      ),
    ));

  const internal = await internalOutputs(db, wallet.id, intent);
  const pooled = pooledFunds(access.plugin, wallet.chain);
  return db.transaction(async (trx) => {
    await lockWalletFunds(trx, wallet.id);
    // The quorum again, under the request's lock: a voter removed since the approval stops it here.
    if (input.request) await requireQuorum(trx, input.request.id, input.request.reopened ?? 0);
    // A parallel call with the same key may have committed while this one waited for the lock:
    // its withdrawal is the answer (a replay), not a refusal for the funds it now holds.
    if (input.idempotencyKey) {
      const existing = await findByKey(trx, wallet.company_id, input.idempotencyKey);
      if (existing) return replayOrConflict(existing, hash);
    }
    refuseByPolicy(await decide(trx));
    await requireFunds(trx, {
      walletId: wallet.id,
      pooled,
      asset: intent.asset,
      native: common.plugins.chainTable().nativeAsset(wallet.chain, wallet.network),
      amount,
      fee: unsigned.fee,
      source: source.address,
      feePayer: unsigned.sourceAddresses.at(-1) ?? source.address,
    });
    // The memo and tag are part of the intent: stored per output, under the intent's guard (002, 008).
    const outputs = intent.outputs.map((o) => ({ toAddress: o.to, amount: o.amount.toString(), ...memoFields(o) }));
    const [row] = (await trx('withdrawals')
      .insert({
        company_id: wallet.company_id,
        wallet_id: wallet.id,
        request_id: input.request?.id ?? null,
        idempotency_key: input.idempotencyKey,
        intent_hash: hash,
        chain: wallet.chain,
        network: wallet.network,
        asset_key: intent.asset.key,
        asset: JSON.stringify(intent.asset),
        amount: amount.toString(),
        to_address: outputs.length === 1 ? outputs[0]?.toAddress : null,
        outputs: JSON.stringify(outputs),
        from_address: source.address,
        internal_amount: internal.amount.toString(),
        to_address_id: pooled ? null : internal.addressId,
        source_addresses: unsigned.sourceAddresses,
        source_indexes: await indexesOf(trx, wallet.id, unsigned.sourceAddresses),
        status: 'prepared',
        unsigned_tx: storedUnsigned(unsigned),
        created_by_key: input.keyId,
        ...(input.sweepRuleId ? { kind: input.kind ?? 'sweep', sweep_rule_id: input.sweepRuleId } : {}),
      })
      .onConflict(['company_id', 'idempotency_key'])
      .ignore()
      .returning('*')) as WithdrawalRow[];
    if (!row) {
      // A concurrent call with the same key won the insert.
      const existing = await findByKey(trx, wallet.company_id, input.idempotencyKey as string);
      if (!existing) throw new InvariantError('idempotency insert conflicted but no row was found');
      return replayOrConflict(existing, hash);
    }
    await addHistory(trx, row.id, 'prepared', {
      feeEstimate: unsigned.fee.toString(),
      ...(input.request ? { requestId: input.request.id, approvals: input.request.approvals } : {}),
    });
    await audit(trx, {
      companyId: wallet.company_id,
      // Without a key it was prepared by walletd itself, once a request's approvals reached the
      // quorum (the votes are their members' own rows); "member" with no member named nobody.
      actorType: input.keyId === null ? 'system' : 'api_key',
      actorId: input.keyId,
      action: 'withdrawal.prepared',
      targetType: 'withdrawal',
      targetId: row.id,
      details: {
        walletId: wallet.id,
        asset: intent.asset.key,
        // In the asset's display units, as the API takes and shows amounts (a reader of the log
        // saw 55000000000000 for 0.000055 ETH); rows written before kept base units.
        amount: `${fromBaseUnits(amount, intent.asset.decimals)} ${intent.asset.symbol}`,
        ...(input.request ? { requestId: input.request.id } : {}),
        ...(input.sweepRuleId ? { sweepRuleId: input.sweepRuleId, kind: input.kind ?? 'sweep' } : {}),
      },
    });
    return { row, replayed: false };
  });
}
