import { BaseError, type Chain, type Db, type UnsignedWithdrawal, evaluatePolicies, isPublicError } from '@walletd/core';
import { type WithdrawalRow, moveWithdrawal, storedUnsigned, unsignedFromRow } from '@walletd/core';
import type { Knex } from 'knex';
import type { Common } from '../platform/context';
import { audit } from '../company/audit';
import { addressingOf, loadPolicies, policyDestinations } from './policies/policies';
import { addressBookView } from './addressBook/bookView';
import { withSigningKeys } from '../keys/masterKey/tokenHeldKeys';
import { holdsSigningClaim, releaseSigningClaim, takeSigningClaim, untilClaimed } from './claims';
import { changeAddressOf } from './changeAddress';
import { type ChainAccess, chainAccess } from './intent';
import { inFlight, indexesOf, onNode } from './prepare';
import { lockWalletFunds } from '../funds/ledger';
import { fundsNeedOf, pooledFunds, requireFunds } from '../funds/requireFunds';
import { lockRow } from './lockRow';
import { requireQuorum } from './requests/countVotes';

/**
 * Destinations are checked again right before signing: a payee denied (or taken off the allow-list
 * or the address book) after the withdrawal was prepared is not paid. Amount limits were settled at prepare.
 */
async function recheckDestinations(trx: Knex.Transaction, row: WithdrawalRow, access: ChainAccess): Promise<void> {
  const policies = (await loadPolicies(trx, row.company_id)).filter(
    (p) => p.kind === 'deny_destinations' || p.kind === 'allow_destinations' || p.kind === 'address_book',
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
    // An entry removed since prepare is not paid.
    ...(policies.some((p) => p.kind === 'address_book')
      ? { addressBook: await addressBookView(trx, row.company_id, row.wallet_id, row.chain, row.network) }
      : {}),
  });
  if (decision.outcome === 'refuse') throw new BaseError(decision.code, decision.message, { details: { policyIds: decision.policyIds } });
}

/**
 * The row's intent built afresh on the node (no transaction open): the next free nonce (or coins)
 * and current fees. A UTXO sweep keeps the transaction it was prepared with: its coins and fee
 * rate are what the consolidation chose (and its amount is exactly their sum less that fee), so a
 * fresh coin selection would pay another amount, with change. Its coins are free: the runner signs
 * it right after prepare, and a coin spent since then only makes the node refuse it (rejected).
 */
async function rebuild(db: Db, row: WithdrawalRow, access: ChainAccess): Promise<UnsignedWithdrawal> {
  if (row.kind === 'sweep' && access.verbs.consolidate && pooledFunds(access.plugin, row.chain)) return unsignedFromRow(row);
  const reader = access.readers.readerFor(access.settings);
  const { intent } = unsignedFromRow(row);
  const change = await changeAddressOf(db, row.wallet_id);
  const others = await inFlight(db, row.wallet_id, row.id);
  return onNode(row.chain, row.network, async () =>
    access.verbs.build({ ...intent, ...(change ? { change } : {}) }, reader, { inFlight: others }),
  );
}

const notSignable = (row: WithdrawalRow) =>
  new BaseError('conflict', `withdrawal ${row.id} is ${row.status}; only a prepared withdrawal can be signed`);
const signingBusy = (id: number) => () =>
  new BaseError('conflict', `withdrawal ${id}: another signature on its wallet is still in progress; retry`);
export const claimLost = (id: number) =>
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
  signed: { fee: bigint; sourceAddresses: string[] },
  store: (trx: Knex.Transaction, cur: WithdrawalRow) => Promise<WithdrawalRow>,
): Promise<WithdrawalRow> {
  return db.transaction(async (trx) => {
    await lockWalletFunds(trx, row.wallet_id);
    // The people behind it still count (see countVotes): the request's lock before the row's, as
    // a removal's recount takes them. A recount that committed first cancelled the row.
    if (row.request_id !== null) await requireQuorum(trx, row.request_id);
    const cur = await lockRow(trx, row.id);
    if (cur.status !== 'prepared') {
      if (cur.signed_tx) return cur;
      throw notSignable(cur);
    }
    if (!(await holdsSigningClaim(trx, cur.wallet_id, token))) throw claimLost(cur.id);
    await recheckDestinations(trx, cur, access);
    // The fee cap signed now may exceed the one reserved at prepare: the new one must fit too.
    await requireFunds(trx, {
      ...fundsNeedOf(cur, access.plugin),
      fee: signed.fee,
      feePayer: signed.sourceAddresses.at(-1) ?? cur.from_address,
    });
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
export async function signWithdrawal(common: Common, id: number, keyId: number | null, ip: string | null = null): Promise<WithdrawalRow> {
  const { db, config, plugins } = common;
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
    const { result: signed, heldIn } = await withSigningKeys(common, row.wallet_id, wallet.secret_envelope, sourceIndexes, (secret) =>
      access.verbs.sign(rebuilt, secret, sourceIndexes),
    ).catch(async (e) => {
      // A signer that refused (a KMS key access denied, disabled or throttled) is said on the row,
      // which stays prepared, its funds held, until a retry signs it or a cancel releases them.
      if (isPublicError(e))
        await db('withdrawals').where({ id: row.id, status: 'prepared' }).update({ last_error: e.message, updated_at: db.fn.now() });
      throw e;
    });
    return await storeSigned(db, row, token, access, rebuilt, async (trx, cur) => {
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
        ip,
        action: 'withdrawal.signed',
        targetType: 'withdrawal',
        targetId: cur.id,
        // A key held in the token or a KMS signed it there (issue 45 §3–4): every such signature is in the log.
        details: heldIn ? { txHash: signed.txHash, keyHeldIn: heldIn } : { txHash: signed.txHash },
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
export async function acceptSigned(
  common: Common,
  id: number,
  raw: string,
  keyId: number | null,
  ip: string | null = null,
): Promise<WithdrawalRow> {
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
    return await storeSigned(db, row, token, access, { fee: checked.fee, sourceAddresses: row.source_addresses }, async (trx, cur) => {
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
        ip,
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
