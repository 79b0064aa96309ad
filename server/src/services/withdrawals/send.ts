import { BaseError, type Chain, type UnsignedWithdrawal, evaluatePolicies, isBaseError, openWalletSecret } from '@walletd/core';
import { type WithdrawalRow, addHistory, moveWithdrawal, unsignedFromRow } from '@walletd/indexer';
import type { Knex } from 'knex';
import type { Common } from '../../context';
import { audit } from '../audit';
import { loadPolicies } from '../policies';
import { walletSecretContext } from '../wallets';
import { type ChainAccess, chainAccess } from './intent';
import { inFlight, indexesOf, onNode } from './prepare';

async function lockRow(trx: Knex.Transaction, id: number): Promise<WithdrawalRow> {
  const row = (await trx('withdrawals').where({ id }).forUpdate().first()) as WithdrawalRow | undefined;
  if (!row) throw new BaseError('not_found', 'Withdrawal not found');
  return row;
}

/**
 * Destinations are checked again right before signing: a payee denied (or taken off the allow-list)
 * after the withdrawal was prepared is not paid. Amount limits were settled at prepare.
 */
async function recheckDestinations(trx: Knex.Transaction, row: WithdrawalRow, access: ChainAccess): Promise<void> {
  const policies = (await loadPolicies(trx, row.company_id)).filter(
    (p) => p.kind === 'deny_destinations' || p.kind === 'allow_destinations',
  );
  const decision = evaluatePolicies(policies, {
    walletId: row.wallet_id,
    assetKey: row.asset_key,
    decimals: row.asset.decimals,
    symbol: row.asset.symbol,
    amount: BigInt(row.amount),
    destinations: row.outputs.map((o) => access.plugin.matchKey(row.chain as Chain, row.network, o.toAddress)),
    volume24h: 0n,
    approvals: null,
  });
  if (decision.outcome === 'refuse') throw new BaseError(decision.code, decision.message, { details: { policyIds: decision.policyIds } });
}

/** The row's intent built afresh under the wallet's signing lock: the next free nonce (or coins) and current fees. */
async function rebuild(trx: Knex.Transaction, row: WithdrawalRow, access: ChainAccess): Promise<UnsignedWithdrawal> {
  // One signer per wallet at a time: the next nonce (EVM) or the free coins (UTXO) are decided under it.
  await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`walletd:sign:${row.wallet_id}`]);
  const reader = access.plugin.createReader(row.chain as Chain, row.network, { rpcUrl: access.settings.rpcUrl });
  const { intent } = unsignedFromRow(row);
  return onNode(row.chain, async () => access.verbs.build(intent, reader, { inFlight: await inFlight(trx, row.wallet_id, row.id) }));
}

const notSignable = (row: WithdrawalRow) =>
  new BaseError('conflict', `withdrawal ${row.id} is ${row.status}; only a prepared withdrawal can be signed`);

/**
 * Server custody: under the row lock and a per-source lock, the transaction is rebuilt with a
 * fresh nonce and fees (the intent is fixed), signed with the key derived from the wallet secret,
 * and stored with its hash — committed before anything is sent. Signing an already signed
 * withdrawal returns it unchanged: there is only ever one signed transaction per withdrawal.
 */
export async function signWithdrawal(common: Common, id: number, keyId: number | null): Promise<WithdrawalRow> {
  const { db, config, plugins, masterKey } = common;
  return db.transaction(async (trx) => {
    const row = await lockRow(trx, id);
    if (row.status !== 'prepared') {
      if (row.signed_tx) return row;
      throw notSignable(row);
    }
    const access = chainAccess(config, plugins, row.chain, row.network);
    await recheckDestinations(trx, row, access);
    const rebuilt = await rebuild(trx, row, access);
    const sourceIndexes = await indexesOf(trx, row.wallet_id, rebuilt.sourceAddresses);
    const wallet = await trx('wallets').where({ id: row.wallet_id }).first('secret_envelope');
    const mnemonic = masterKey.open(wallet.secret_envelope, walletSecretContext(row.wallet_id));
    let signed: { raw: string; txHash: string };
    const secret = openWalletSecret(mnemonic);
    try {
      signed = await access.verbs.sign(rebuilt, secret, sourceIndexes);
    } finally {
      secret.dispose();
      mnemonic.fill(0);
    }
    const updated = await moveWithdrawal(
      trx,
      row,
      'signed',
      {
        unsigned_tx: JSON.stringify({ payload: rebuilt.payload, fee: rebuilt.fee.toString() }),
        source_addresses: rebuilt.sourceAddresses,
        source_indexes: sourceIndexes,
        signed_tx: signed.raw,
        tx_hash: signed.txHash,
        signed_by: 'server',
        signed_at: trx.fn.now(),
        last_error: null,
      },
      { txHash: signed.txHash, signedBy: 'server' },
    );
    await audit(trx, {
      companyId: row.company_id,
      actorType: 'api_key',
      actorId: keyId,
      action: 'withdrawal.signed',
      targetType: 'withdrawal',
      targetId: row.id,
      details: { txHash: signed.txHash },
    });
    return updated;
  });
}

/**
 * A transaction signed elsewhere: accepted only if the plugin finds it pays exactly the prepared
 * intent (`checkSigned`), then stored like a server signature. The same bytes again are a no-op;
 * another transaction for an already signed withdrawal is a conflict.
 */
export async function acceptSigned(common: Common, id: number, raw: string, keyId: number | null): Promise<WithdrawalRow> {
  const { db, config, plugins } = common;
  return db.transaction(async (trx) => {
    const row = await lockRow(trx, id);
    const access = chainAccess(config, plugins, row.chain, row.network);
    if (row.status !== 'prepared') {
      if (!row.signed_tx) throw notSignable(row);
      let same = false;
      try {
        same = access.verbs.checkSigned(unsignedFromRow(row), raw).signed.txHash.toLowerCase() === row.tx_hash?.toLowerCase();
      } catch {
        same = false;
      }
      if (same) return row;
      throw new BaseError('conflict', `withdrawal ${row.id} is already signed with transaction ${row.tx_hash}`);
    }
    await recheckDestinations(trx, row, access);
    // Against a fresh build: the nonce must be the next free one (an old, mined transaction is refused).
    const checked = access.verbs.checkSigned(unsignedFromRow(row), raw, await rebuild(trx, row, access));
    const taken = await trx('withdrawals').whereRaw('lower(tx_hash) = lower(?)', [checked.signed.txHash]).first('id');
    if (taken) throw new BaseError('conflict', 'this transaction already belongs to another withdrawal');
    const updated = await moveWithdrawal(
      trx,
      row,
      'signed',
      {
        unsigned_tx: JSON.stringify({ payload: checked.payload, fee: checked.fee.toString() }),
        signed_tx: checked.signed.raw,
        tx_hash: checked.signed.txHash,
        signed_by: 'external',
        signed_at: trx.fn.now(),
        last_error: null,
      },
      { txHash: checked.signed.txHash, signedBy: 'external' },
    );
    await audit(trx, {
      companyId: row.company_id,
      actorType: 'api_key',
      actorId: keyId,
      action: 'withdrawal.signed_externally',
      targetType: 'withdrawal',
      targetId: row.id,
      details: { txHash: checked.signed.txHash },
    });
    return updated;
  });
}

/**
 * At most one send per withdrawal: the row stays locked from the check to the record, so a
 * concurrent call waits and then finds it broadcast. Before sending, the node is asked whether it
 * already knows the hash (a process that died after sending and before recording): then the
 * withdrawal is recorded as broadcast without sending. Sending the stored bytes again could not
 * pay twice anyway (same transaction), but it is not even attempted.
 */
export async function broadcastWithdrawal(common: Common, id: number): Promise<WithdrawalRow> {
  const { db, config, plugins } = common;
  let failure: BaseError | null = null;
  const result = await db.transaction(async (trx) => {
    const row = await lockRow(trx, id);
    if (row.status !== 'signed') {
      if (row.status === 'prepared' || row.status === 'cancelled')
        throw new BaseError('conflict', `withdrawal ${row.id} is ${row.status}; sign it first (or send signedTransaction)`);
      return row;
    }
    const access = chainAccess(config, plugins, row.chain, row.network);
    const reader = access.plugin.createReader(row.chain as Chain, row.network, { rpcUrl: access.settings.rpcUrl });
    const unsigned = unsignedFromRow(row);
    const verdict = await onNode(row.chain, () => access.verbs.verify(unsigned, row.tx_hash as string, reader, { seenInBlock: false }));
    if (verdict.status === 'rejected' && verdict.blockNumber === undefined) {
      // Its nonce (or inputs) went to another transaction: this one can never be published.
      return moveWithdrawal(trx, row, 'rejected', { reason: verdict.reason ?? 'mempool_dropped' }, { reason: verdict.reason });
    }
    if (verdict.status === 'missing') {
      try {
        await access.verbs.broadcast({ raw: row.signed_tx as string, txHash: row.tx_hash as string }, reader);
      } catch (e) {
        // "nonce too low" may mean it was mined meanwhile (or another backend has it): ask again.
        const again = await access.verbs.verify(unsigned, row.tx_hash as string, reader, { seenInBlock: false }).catch(() => null);
        if (!again || again.status === 'missing' || (again.status === 'rejected' && again.blockNumber === undefined)) {
          failure = isBaseError(e) ? e : new BaseError('node_error', `the ${row.chain} node did not take the transaction`, { cause: e });
          return row;
        }
      }
    }
    return moveWithdrawal(
      trx,
      row,
      'broadcast',
      { broadcast_at: trx.fn.now(), last_error: null },
      verdict.status === 'missing' ? { txHash: row.tx_hash } : { txHash: row.tx_hash, reconciled: 'the node already knew it' },
    );
  });
  if (failure) {
    const f = failure as BaseError;
    await db.transaction(async (trx) => {
      await trx('withdrawals').where({ id, status: 'signed' }).update({ last_error: f.message, updated_at: trx.fn.now() });
      await addHistory(trx, id, 'broadcast_failed', { code: f.code, message: f.message });
    });
    throw f;
  }
  return result;
}

/** Only a prepared withdrawal can be cancelled: once signed, its transaction may exist elsewhere. */
export async function cancelWithdrawal(common: Common, id: number): Promise<WithdrawalRow> {
  return common.db.transaction(async (trx) => {
    const row = await lockRow(trx, id);
    if (row.status === 'cancelled') return row;
    if (row.status !== 'prepared')
      throw new BaseError('conflict', `withdrawal ${row.id} is ${row.status}; only a prepared one can be cancelled`);
    return moveWithdrawal(trx, row, 'cancelled', {});
  });
}
