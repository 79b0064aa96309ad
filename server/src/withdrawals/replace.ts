import {
  type AttemptRow,
  BaseError,
  type WithdrawalRow,
  addHistory,
  attemptUnsigned,
  loadAttempts,
  recordWithdrawalEvent,
  storedUnsigned,
  unsignedFromRow,
} from '@walletd/core';
import type { Common } from '../platform/context';
import { audit } from '../company/audit';
import { lockWalletFunds } from '../funds/ledger';
import { fundsNeedOf, requireFunds } from '../funds/requireFunds';
import { withSigningKeys } from '../keys/masterKey/tokenHeldKeys';
import { changeAddressOf } from './changeAddress';
import { chainAccess } from './intent';
import { lockRow } from './lockRow';
import { indexesOf, nodeFailure, onNode } from './prepare';

export interface ReplaceCall {
  kind: 'speed_up' | 'cancel';
  /** The caller's cap on the replacement's max fee per gas, base units. */
  maxFeePerGas?: bigint;
  /** Bitcoin family: the caller's cap on the replacement's fee rate, base units per vbyte. */
  maxFeeRate?: bigint;
  /** Auto-bump: fees at least this many thousandths of the replaced ones. */
  factorPermille?: bigint;
  /** The transaction the caller means to replace: refused (409) once another replaced it. */
  replaces?: string;
  keyId: number | null;
  /** Who asked, when not an API key: a member in the console (after a step-up), or walletd itself (auto-bump). */
  actor?: { type: 'member' | 'system'; id: number | null };
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);

/**
 * Speeds up or cancels a broadcast withdrawal on its nonce (issue 46 §1, §2). Under the wallet's
 * funds lock and the row's lock, held across the node's fee suggestion and the signature so that
 * parallel calls decide one after the other (`replaces` lets a caller say which transaction it
 * saw: the second of two parallel calls then gets 409 instead of a second replacement): the
 * replacement is built from the latest transaction, signed, its fee cap reserved (the reservation
 * only grows: `insufficient_funds` as at prepare), stored as an attempt and audited with the old
 * and new fees. The amount and the destination never change, so the policies and approvals that
 * covered the withdrawal still do. After the commit it is sent and announced (`withdrawal.broadcast`
 * with the new hash); the tracker settles the withdrawal by whichever attempt lands.
 */
export async function replaceWithdrawal(common: Common, id: number, call: ReplaceCall): Promise<WithdrawalRow> {
  const { db, config, plugins } = common;
  const made = await db.transaction(async (trx) => {
    const owner = (await trx('withdrawals').where({ id }).first('wallet_id')) as { wallet_id: number } | undefined;
    if (owner) await lockWalletFunds(trx, owner.wallet_id);
    const row = await lockRow(trx, id);
    const access = chainAccess(config, plugins, row.chain, row.network);
    if (!access.verbs.replace) throw new BaseError('unprocessable', `${row.chain} withdrawals cannot be sped up or cancelled on chain`);
    if (row.status !== 'broadcast')
      throw new BaseError('conflict', `withdrawal ${row.id} is ${row.status}; only a broadcast withdrawal can be replaced`);
    const attempts = await loadAttempts(trx, row.id);
    const latest = attempts.at(-1);
    const latestHash = latest?.tx_hash ?? (row.tx_hash as string);
    if (call.replaces !== undefined && call.replaces.toLowerCase() !== latestHash.toLowerCase())
      throw new BaseError('conflict', `withdrawal ${row.id}: ${call.replaces} was already replaced by ${latestHash}`);
    if (latest?.kind === 'cancel') {
      if (call.kind === 'cancel') return { row, attempt: null };
      throw new BaseError('conflict', `withdrawal ${row.id} is being cancelled on chain (${latestHash})`);
    }
    // A speed-up that names no transaction, when the latest is a speed-up and the chain has not
    // indexed a block since: the same call twice (a double click, two parallel requests). It
    // answers the withdrawal unchanged rather than replacing a replacement nothing could mine yet.
    if (call.replaces === undefined && call.kind === 'speed_up' && latest?.kind === 'speed_up') {
      const cursor = (await trx('chain_cursors').where({ chain: row.chain, network: row.network }).first('updated_at')) as
        | { updated_at: Date }
        | undefined;
      if (!cursor || cursor.updated_at <= latest.created_at) return { row, attempt: null };
    }
    const replaced = latest ? attemptUnsigned(row, latest) : unsignedFromRow(row);
    // UTXO: a cancel pays the inputs back to the wallet's change address.
    const change = await changeAddressOf(trx, row.wallet_id);
    const current = change ? { ...replaced, intent: { ...replaced.intent, change } } : replaced;
    const reader = access.readers.readerFor(access.settings);
    const next = await onNode(row.chain, row.network, () =>
      access.verbs.replace!(
        current,
        {
          kind: call.kind,
          ...(call.maxFeePerGas !== undefined ? { maxFeePerGas: call.maxFeePerGas } : {}),
          ...(call.maxFeeRate !== undefined ? { maxFeeRate: call.maxFeeRate } : {}),
          ...(call.factorPermille !== undefined ? { factorPermille: call.factorPermille } : {}),
        },
        reader,
      ),
    );
    const reservedFee = unsignedFromRow(row).fee;
    // Only one transaction lands. A cancel of a payout in the native coin spends its fee instead of
    // the amount plus the payout's fee: holding the larger of the two is enough (a payout that
    // emptied the wallet can still be cancelled). Otherwise the highest fee cap of any attempt.
    const cancelInNative = call.kind === 'cancel' && !row.asset.contractAddress;
    const fee = max(reservedFee, cancelInNative ? next.fee - BigInt(row.amount) : next.fee);
    await requireFunds(trx, { ...fundsNeedOf(row, access.plugin), fee });
    const indexes = await indexesOf(trx, row.wallet_id, next.sourceAddresses);
    const wallet = await trx('wallets').where({ id: row.wallet_id }).first('secret_envelope');
    // A source held in the token (a gas station) signs its replacement there too.
    const { result: signed, heldIn } = await withSigningKeys(common, row.wallet_id, wallet.secret_envelope, indexes, (secret) =>
      access.verbs.sign(next, secret, indexes),
    );
    if (!latest)
      await trx('withdrawal_attempts').insert({
        withdrawal_id: row.id,
        kind: 'original',
        tx_hash: row.tx_hash,
        signed_tx: row.signed_tx,
        unsigned_tx: JSON.stringify(row.unsigned_tx),
        fee_cap: reservedFee.toString(),
        created_at: row.broadcast_at ?? trx.fn.now(),
      });
    const [attempt] = (await trx('withdrawal_attempts')
      .insert({
        withdrawal_id: row.id,
        kind: call.kind,
        tx_hash: signed.txHash,
        signed_tx: signed.raw,
        unsigned_tx: storedUnsigned(next),
        fee_cap: next.fee.toString(),
      })
      .returning('*')) as AttemptRow[];
    // The reservation grows to the highest cap of any attempt (only one can land; it is not known which).
    const [updated] = (await trx('withdrawals')
      .where({ id: row.id })
      // auto_bump_from: the auto-bumper counts its blocks from this replacement on (migration 045).
      .update({ unsigned_tx: JSON.stringify({ ...row.unsigned_tx, fee: fee.toString() }), auto_bump_from: null, updated_at: trx.fn.now() })
      .returning('*')) as WithdrawalRow[];
    const fees = { previous: current.payload, next: next.payload, previousFeeCap: current.fee.toString(), feeCap: next.fee.toString() };
    await addHistory(trx, row.id, call.kind === 'cancel' ? 'cancel_onchain' : 'speed_up', { txHash: signed.txHash, replaces: latestHash });
    await audit(trx, {
      companyId: row.company_id,
      actorType: call.actor?.type ?? 'api_key',
      actorId: call.actor ? call.actor.id : call.keyId,
      action: call.kind === 'cancel' ? 'withdrawal.cancel_onchain' : 'withdrawal.speed_up',
      targetType: 'withdrawal',
      targetId: row.id,
      details: { txHash: signed.txHash, replaces: latestHash, ...fees, ...(heldIn ? { keyHeldIn: heldIn } : {}) },
    });
    return { row: updated as WithdrawalRow, attempt };
  });
  const attempt = made.attempt;
  if (!attempt) return made.row;
  const access = chainAccess(config, plugins, made.row.chain, made.row.network);
  const reader = access.readers.readerFor(access.settings);
  try {
    await access.verbs.broadcast({ raw: attempt.signed_tx, txHash: attempt.tx_hash }, reader);
  } catch (e) {
    // Recorded and reserved already: the tracker sends it again while its nonce is free.
    throw nodeFailure(made.row.chain, made.row.network, e);
  }
  return db.transaction(async (trx) => {
    const cur = await lockRow(trx, id);
    await recordWithdrawalEvent(trx, { ...cur, tx_hash: attempt.tx_hash }, 'broadcast');
    return cur;
  });
}
