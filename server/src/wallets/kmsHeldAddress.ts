import { BaseError, type ChainPlugin } from '@walletd/core';
import type { WalletRow } from '../http/scope';
import { kmsHeldAddress } from '../keys/kmsHeldKeys';
import { addressRow } from './addressRow';
import { type AddressServices, type AddressView, insertDeposit, lockForNewAddress, registerTokenAccounts } from './addressWrites';

/**
 * An address of the wallet whose key is an AWS KMS key the operator made (`kmsKeyId`): a treasury
 * or hot address that signs in KMS, never derived from the mnemonic. KMS is asked for the public
 * key before any transaction opens (no network call under a row lock); the address still takes the
 * wallet's next index, so no derived address ever lands on it. Only the key id is stored.
 */
export async function generateKmsHeldAddress(
  s: AddressServices & { config: Parameters<typeof kmsHeldAddress>[0] },
  plugin: ChainPlugin,
  wallet: WalletRow,
  label: string | null,
  kmsKeyId: string,
): Promise<AddressView> {
  if (plugin.chains.find((c) => c.chain === wallet.chain)?.addressing === 'account-tag') {
    throw new BaseError('unprocessable', `${wallet.chain} addresses are tags of the wallet's account: none is held in KMS`);
  }
  const held = await kmsHeldAddress(s.config, plugin, wallet, kmsKeyId);
  const view = await s.db.transaction(async (trx) => {
    const taken = await trx('addresses')
      .where({ chain: wallet.chain, network: wallet.network, match_key: held.matchKey })
      .first('id', 'wallet_id');
    if (taken) {
      throw new BaseError(
        'conflict',
        `the KMS key ${kmsKeyId} is already address ${taken.id} of wallet ${taken.wallet_id} on ${wallet.chain}`,
      );
    }
    const locked = await lockForNewAddress(trx, wallet);
    const index = locked.next_address_index;
    return insertDeposit(trx, wallet, { ...addressRow(wallet, held, index, 'deposit', label), kms_key_id: held.kms_key_id }, index);
  });
  await registerTokenAccounts(s, plugin, wallet, view.id);
  return view;
}
