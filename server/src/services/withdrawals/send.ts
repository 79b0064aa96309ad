import { BaseError, type Chain, type Db, type UnsignedWithdrawal, evaluatePolicies, isBaseError } from '@walletd/core';
import { type WithdrawalRow, addHistory, moveWithdrawal, storedUnsigned, unsignedFromRow } from '@walletd/core';
import type { Knex } from 'knex';
import type { Common } from '../../context';
import { audit } from '../audit';
import { addressingOf, loadPolicies, policyDestinations } from '../policies';
import { withWalletSecret } from '../wallets';
import { holdsSigningClaim, releaseSendClaim, releaseSigningClaim, takeSendClaim, takeSigningClaim, untilClaimed } from './claims';
import { changeAddressOf } from './changeAddress';
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
    destinations: policyDestinations(
      addressingOf(access.readers, row.chain),
      row.outputs.map((o) => ({ ...o, toKey: access.plugin.matchKey(row.chain as Chain, row.network, o.toAddress) })),
    ),
    volume24h: 0n,
    approvals: null,
  });
  if (decision.outcome === 'refuse') throw new BaseError(decision.code, decision.message, { details: { policyIds: decision.policyIds } });
}

/** The row's intent built afresh on the node (no transaction open): the next free nonce (or coins) and current fees. */
async function rebuild(db: Db, row: WithdrawalRow, access: ChainAccess): Promise<UnsignedWithdrawal> {
  const reader = access.readers.readerFor(access.settings);
  const { intent } = unsignedFromRow(row);
  const change = await changeAddressOf(db, row.wallet_id);
  const others = await inFlight(db, row.wallet_id, row.id);
  return onNode(row.chain, async () => access.verbs.build({ ...intent, ...(change ? { change } : {}) }, reader, { inFlight: others }));
}

const notSignable = (row: WithdrawalRow) =>
  new BaseError('conflict', `withdrawal ${row.id} is ${row.status}; only a prepared withdrawal can be signed`);
const signingBusy = (id: number) => () =>
  new BaseError('conflict', `withdrawal ${id}: another signature on its wallet is still in progress; retry`);
const claimLost = (id: number) =>
  new BaseError('conflict', `withdrawal ${id}: the claim ran out while the node answered and another caller took it; retry`);

/**
 * Short transaction 1: a prepared row and the wallet's signing claim (waiting out another
 * caller's), or the row as it is when it is no longer prepared.
 */
async function claimSigning(db: Db, id: number): Promise<{ row: WithdrawalRow; token: string | null }> {
  return untilClaimed(
    () =>
      db.transaction(async (trx) => {
        const row = await lockRow(trx, id);
        if (row.status !== 'prepared') return { row, token: null };
        const token = await takeSigningClaim(trx, row.wallet_id);
        return token ? { row, token } : null;
      }),
    signingBusy(id),
  );
}

/**
 * Short transaction 2: still prepared, the claim still ours, the destinations still allowed; then
 * `store` records the signed bytes and the claim is released in the same commit. A row someone
 * else signed meanwhile is returned as it is.
 */
async function storeSigned(
  db: Db,
  row: WithdrawalRow,
  token: string,
  access: ChainAccess,
  store: (trx: Knex.Transaction, cur: WithdrawalRow) => Promise<WithdrawalRow>,
): Promise<WithdrawalRow> {
  return db.transaction(async (trx) => {
    const cur = await lockRow(trx, row.id);
    if (cur.status !== 'prepared') {
      if (cur.signed_tx) return cur;
      throw notSignable(cur);
    }
    if (!(await holdsSigningClaim(trx, cur.wallet_id, token))) throw claimLost(cur.id);
    await recheckDestinations(trx, cur, access);
    const updated = await store(trx, cur);
    await releaseSigningClaim(trx, cur.wallet_id, token);
    return updated;
  });
}

/**
 * Server custody, with no transaction open across a node call: (1) a short transaction takes the
 * wallet's signing claim (one signer per wallet, so the next nonce or the free coins are decided
 * once); (2) the transaction is rebuilt on the node with a fresh nonce and fees (the intent is
 * fixed) and signed with the key derived from the wallet secret; (3) a short transaction checks the
 * row is still prepared and the claim still ours, and stores the signed bytes with their hash —
 * committed before anything is sent. Signing an already signed withdrawal returns it unchanged: a
 * second caller waits for the claim and then finds it signed; there is only ever one signed
 * transaction per withdrawal (the trigger of migration 002 refuses a replacement).
 */
export async function signWithdrawal(common: Common, id: number, keyId: number | null): Promise<WithdrawalRow> {
  const { db, config, plugins, masterKey } = common;
  const { row, token } = await claimSigning(db, id);
  if (!token) {
    if (row.signed_tx) return row;
    throw notSignable(row);
  }
  try {
    const access = chainAccess(config, plugins, row.chain, row.network);
    // Before the key is used; checked again when the signature is stored.
    await db.transaction((trx) => recheckDestinations(trx, row, access));
    const rebuilt = await rebuild(db, row, access);
    const sourceIndexes = await indexesOf(db, row.wallet_id, rebuilt.sourceAddresses);
    const wallet = await db('wallets').where({ id: row.wallet_id }).first('secret_envelope');
    const signed = await withWalletSecret(masterKey, row.wallet_id, wallet.secret_envelope, (secret) =>
      access.verbs.sign(rebuilt, secret, sourceIndexes),
    );
    return await storeSigned(db, row, token, access, async (trx, cur) => {
      const updated = await moveWithdrawal(
        trx,
        cur,
        'signed',
        {
          unsigned_tx: storedUnsigned(rebuilt),
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
        companyId: cur.company_id,
        actorType: 'api_key',
        actorId: keyId,
        action: 'withdrawal.signed',
        targetType: 'withdrawal',
        targetId: cur.id,
        details: { txHash: signed.txHash },
      });
      return updated;
    });
  } finally {
    await releaseSigningClaim(db, row.wallet_id, token).catch(() => undefined);
  }
}

function sameSigned(access: ChainAccess, row: WithdrawalRow, raw: string): WithdrawalRow {
  let same = false;
  try {
    same = access.verbs.checkSigned(unsignedFromRow(row), raw).signed.txHash.toLowerCase() === row.tx_hash?.toLowerCase();
  } catch {
    same = false;
  }
  if (same) return row;
  throw new BaseError('conflict', `withdrawal ${row.id} is already signed with transaction ${row.tx_hash}`);
}

/**
 * A transaction signed elsewhere: accepted only if the plugin finds it pays exactly the prepared
 * intent (`checkSigned`, against a fresh build made under the wallet's signing claim with no
 * transaction open), then stored like a server signature. The same bytes again are a no-op;
 * another transaction for an already signed withdrawal is a conflict.
 */
export async function acceptSigned(common: Common, id: number, raw: string, keyId: number | null): Promise<WithdrawalRow> {
  const { db, config, plugins } = common;
  const { row, token } = await claimSigning(db, id);
  const access = chainAccess(config, plugins, row.chain, row.network);
  if (!token) {
    if (!row.signed_tx) throw notSignable(row);
    return sameSigned(access, row, raw);
  }
  try {
    await db.transaction((trx) => recheckDestinations(trx, row, access));
    // Against a fresh build: the nonce must be the next free one (an old, mined transaction is refused).
    const checked = access.verbs.checkSigned(unsignedFromRow(row), raw, await rebuild(db, row, access));
    return await storeSigned(db, row, token, access, async (trx, cur) => {
      const taken = await trx('withdrawals').whereRaw('lower(tx_hash) = lower(?)', [checked.signed.txHash]).first('id');
      if (taken) throw new BaseError('conflict', 'this transaction already belongs to another withdrawal');
      const updated = await moveWithdrawal(
        trx,
        cur,
        'signed',
        {
          unsigned_tx: storedUnsigned(checked),
          signed_tx: checked.signed.raw,
          tx_hash: checked.signed.txHash,
          signed_by: 'external',
          signed_at: trx.fn.now(),
          last_error: null,
        },
        { txHash: checked.signed.txHash, signedBy: 'external' },
      );
      await audit(trx, {
        companyId: cur.company_id,
        actorType: 'api_key',
        actorId: keyId,
        action: 'withdrawal.signed_externally',
        targetType: 'withdrawal',
        targetId: cur.id,
        details: { txHash: checked.signed.txHash },
      });
      return updated;
    }).then((stored) => (stored.tx_hash?.toLowerCase() === checked.signed.txHash.toLowerCase() ? stored : sameSigned(access, stored, raw)));
  } finally {
    await releaseSigningClaim(db, row.wallet_id, token).catch(() => undefined);
  }
}

/**
 * At most one send per withdrawal, with no transaction open across a node call: (1) a short
 * transaction takes the row's send claim (a concurrent call waits for it, then finds the
 * withdrawal broadcast); (2) the node is asked whether it already knows the hash (a process that
 * died after sending and before recording: then nothing is sent) and otherwise the stored bytes
 * are sent; (3) a short transaction records the outcome if the claim is still ours and releases
 * it. Only a claim whose lease ran out (its holder died or hung past it) lets a second caller
 * send, and then the same stored bytes: one transaction, never two.
 */
export async function broadcastWithdrawal(common: Common, id: number): Promise<WithdrawalRow> {
  const { db, config, plugins } = common;
  const { row, token } = await untilClaimed(
    () =>
      db.transaction(async (trx) => {
        const row = await lockRow(trx, id);
        if (row.status !== 'signed') return { row, token: null };
        const token = await takeSendClaim(trx, id);
        return token ? { row, token } : null;
      }),
    () => new BaseError('conflict', `withdrawal ${id} is being broadcast by another call; retry`),
  );
  if (!token) {
    if (row.status === 'prepared' || row.status === 'cancelled')
      throw new BaseError('conflict', `withdrawal ${row.id} is ${row.status}; sign it first (or send signedTransaction)`);
    return row;
  }
  /** Short transaction 3: the row still signed and the claim ours, then `move`, releasing the claim. */
  const record = (move: (trx: Knex.Transaction, cur: WithdrawalRow) => Promise<WithdrawalRow>) =>
    db.transaction(async (trx) => {
      const cur = await lockRow(trx, id);
      // The tracker reconciled it meanwhile (it found the hash on the node): already recorded.
      if (cur.status !== 'signed') return cur;
      if (cur.send_claim !== token) throw claimLost(id);
      return move(trx, cur);
    });
  try {
    const access = chainAccess(config, plugins, row.chain, row.network);
    const reader = access.readers.readerFor(access.settings);
    const unsigned = unsignedFromRow(row);
    const verdict = await onNode(row.chain, () => access.verbs.verify(unsigned, row.tx_hash as string, reader, { seenInBlock: false }));
    const released = { send_claim: null, send_until: null };
    if (verdict.status === 'rejected' && verdict.blockNumber === undefined) {
      // Its nonce (or inputs) went to another transaction: this one can never be published.
      return await record((trx, cur) =>
        moveWithdrawal(trx, cur, 'rejected', { ...released, reason: verdict.reason ?? 'mempool_dropped' }, { reason: verdict.reason }),
      );
    }
    if (verdict.status === 'missing') {
      try {
        await access.verbs.broadcast({ raw: row.signed_tx as string, txHash: row.tx_hash as string }, reader);
      } catch (e) {
        // "nonce too low" may mean it was mined meanwhile (or another backend has it): ask again.
        const again = await access.verbs.verify(unsigned, row.tx_hash as string, reader, { seenInBlock: false }).catch(() => null);
        if (!again || again.status === 'missing' || (again.status === 'rejected' && again.blockNumber === undefined)) {
          const f = isBaseError(e) ? e : new BaseError('node_error', `the ${row.chain} node did not take the transaction`, { cause: e });
          await db.transaction(async (trx) => {
            const n = await trx('withdrawals')
              .where({ id, status: 'signed', send_claim: token })
              .update({ ...released, last_error: f.message, updated_at: trx.fn.now() });
            if (n) await addHistory(trx, id, 'broadcast_failed', { code: f.code, message: f.message });
          });
          throw f;
        }
      }
    }
    return await record((trx, cur) =>
      moveWithdrawal(
        trx,
        cur,
        'broadcast',
        { ...released, broadcast_at: trx.fn.now(), last_error: null },
        verdict.status === 'missing' ? { txHash: cur.tx_hash } : { txHash: cur.tx_hash, reconciled: 'the node already knew it' },
      ),
    );
  } finally {
    await releaseSendClaim(db, id, token).catch(() => undefined);
  }
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
