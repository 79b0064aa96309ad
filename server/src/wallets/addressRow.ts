import type { DerivedAddress } from '@walletd/core';

type WalletKeys = { id: number; company_id: number; chain: string; network: string };

/** An `addresses` row for a derived address of the wallet: a deposit address, its change address (migration 009) or its account (account-tag chains, migration 010). */
export function addressRow(
  wallet: WalletKeys,
  derived: DerivedAddress,
  index: number,
  kind: 'deposit' | 'change' | 'account' | 'gas_station',
  label: string | null,
): Record<string, unknown> {
  return {
    company_id: wallet.company_id,
    wallet_id: wallet.id,
    chain: wallet.chain,
    network: wallet.network,
    address: derived.address,
    match_key: derived.matchKey,
    derivation_index: index,
    derivation_path: derived.path,
    kind,
    label,
  };
}
