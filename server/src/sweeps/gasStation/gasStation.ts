import { BaseError, type Chain } from '@walletd/core';
import type { Common } from '../../platform/context';
import type { WalletRow } from '../../http/scope';
import { addressRow } from '../../wallets/addressRow';
import { pooledFunds } from '../../funds/requireFunds';
import { withWalletSecret } from '../../wallets/wallets';
import { tokenHeldAddress } from '../../keys/masterKey/tokenHeldKeys';
import { kmsHeldAddress } from '../../keys/kmsHeldKeys';

/**
 * What one top-up adds to the fee the node quotes for the sweep (gas estimate + 20%, times twice
 * the base fee plus the tip), in percent: the base fee may rise by 12.5% a block between the
 * top-up and the sweep. What the sweep does not spend stays on the address for its next sweep.
 */
export const TOP_UP_MARGIN_PERCENT = 25n;

export interface GasStation {
  id: number;
  address: string;
  match_key: string;
  derivation_index: number;
  derivation_path: string;
  /** The token's key pair label when its key is held there (issue 45 §3), else null. */
  key_label: string | null;
  /** The AWS KMS key's id when its key is held there (issue 45 §4, `createKmsGasStation`), else null. */
  kms_key_id: string | null;
}

/**
 * Whether the chain lets another account pay a transaction's fee (Solana's fee payer): there the
 * station pays a token sweep's fee itself, in the sweep, instead of topping the address up.
 */
export function stationPaysFees(common: Pick<Common, 'plugins'>, wallet: Pick<WalletRow, 'chain'>): boolean {
  const plugin = common.plugins.forChain(wallet.chain);
  return plugin?.chains.find((c) => c.chain === wallet.chain)?.capabilities.feePayer === true;
}

/**
 * Only where the plugin can quote a fee without the source paying it (its optional `quoteFee`:
 * EVM chains, TON's jetton forward and gas amounts, Polkadot's fee with its existential deposit),
 * or where the station pays the fee itself (a fee payer, Solana). Elsewhere refused with 422 naming the chain.
 */
export function refuseNoGasStation(common: Pick<Common, 'plugins'>, wallet: Pick<WalletRow, 'chain'>): void {
  const plugin = common.plugins.forChain(wallet.chain);
  if (!plugin?.withdrawals?.quoteFee || pooledFunds(plugin, wallet.chain))
    throw new BaseError(
      'unprocessable',
      `${wallet.chain} has no gas station: its plugin quotes no fee for a top-up (its token sweeps need native coin on the address)`,
    );
}

export async function gasStationOf(common: Pick<Common, 'db'>, walletId: number): Promise<GasStation | undefined> {
  return (await common
    .db('addresses')
    .where({ wallet_id: walletId, kind: 'gas_station' })
    .first('id', 'address', 'match_key', 'derivation_index', 'derivation_path', 'key_label', 'kms_key_id')) as GasStation | undefined;
}

/**
 * The wallet's gas station: created the first time it is asked for (the API or a sweep that needs
 * gas), derived from the wallet's key at the next deposit index (taken under the wallet's row lock,
 * so no deposit address ever shares it), stored with kind `gas_station`: watched by the indexer,
 * counted in the wallet's balance, never handed out as a deposit address nor swept.
 */
export async function ensureGasStation(common: Common, wallet: WalletRow): Promise<GasStation> {
  refuseNoGasStation(common, wallet);
  const existing = await gasStationOf(common, wallet.id);
  if (existing) return existing;
  const plugin = common.plugins.forChain(wallet.chain);
  if (!plugin) throw new BaseError('unprocessable', `no plugin serves ${wallet.chain}`);
  await common.db.transaction(async (trx) => {
    const locked = await trx('wallets').where({ id: wallet.id }).forUpdate().first('next_address_index', 'secret_envelope');
    // A parallel call may have made it while this one waited for the lock.
    if (await trx('addresses').where({ wallet_id: wallet.id, kind: 'gas_station' }).first('id')) return;
    const index = locked.next_address_index as number;
    if (common.config.masterKey.gasStationsInToken) {
      // Its key pair made inside the token, which signs its top-ups there (issue 45 §3); the index
      // is still taken, so no deposit address is ever derived at it.
      const held = tokenHeldAddress(common.config, plugin, wallet, `walletd-gas-station-${wallet.id}`);
      await trx('addresses').insert({ ...addressRow(wallet, held, index, 'gas_station', 'gas station'), key_label: held.key_label });
    } else {
      const derived = await withWalletSecret(common.masterKey, wallet.id, locked.secret_envelope, (secret) =>
        plugin.deriveAddress(wallet.chain as Chain, wallet.network, secret, index),
      );
      await trx('addresses').insert(addressRow(wallet, derived, index, 'gas_station', 'gas station'));
    }
    await trx('wallets')
      .where({ id: wallet.id })
      .update({ next_address_index: index + 1 });
  });
  return (await gasStationOf(common, wallet.id)) as GasStation;
}

/**
 * `POST /v1/wallets/:id/gas-station` with a KMS key: the wallet's station made as the address of
 * the AWS KMS key `kmsKeyId` (its curve the chain's), which signs its top-ups (or, on Solana, its
 * fee-payer signatures) in KMS. KMS is asked before the transaction; the index is still taken so no
 * deposit address is ever derived at it. A wallet has one station and its key never changes: 409
 * when it already has one.
 */
export async function createKmsGasStation(common: Common, wallet: WalletRow, kmsKeyId: string): Promise<GasStation> {
  refuseNoGasStation(common, wallet);
  const plugin = common.plugins.forChain(wallet.chain);
  if (!plugin) throw new BaseError('unprocessable', `no plugin serves ${wallet.chain}`);
  const stationTaken = (s: GasStation | { address: string }) =>
    new BaseError('conflict', `wallet ${wallet.id} already has its gas station ${s.address}; a station's key never changes`);
  const existing = await gasStationOf(common, wallet.id);
  if (existing) throw stationTaken(existing);
  const held = await kmsHeldAddress(common.config, plugin, wallet, kmsKeyId);
  await common.db.transaction(async (trx) => {
    const locked = await trx('wallets').where({ id: wallet.id }).forUpdate().first('next_address_index');
    const raced = await trx('addresses').where({ wallet_id: wallet.id, kind: 'gas_station' }).first('address');
    if (raced) throw stationTaken(raced);
    const taken = await trx('addresses')
      .where({ chain: wallet.chain, network: wallet.network, match_key: held.matchKey })
      .first('id', 'wallet_id');
    if (taken) throw new BaseError('conflict', `the KMS key ${kmsKeyId} is already address ${taken.id} of wallet ${taken.wallet_id}`);
    const index = locked.next_address_index as number;
    await trx('addresses').insert({ ...addressRow(wallet, held, index, 'gas_station', 'gas station'), kms_key_id: held.kms_key_id });
    await trx('wallets')
      .where({ id: wallet.id })
      .update({ next_address_index: index + 1 });
  });
  return (await gasStationOf(common, wallet.id)) as GasStation;
}
