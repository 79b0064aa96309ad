/**
 * A wallet's addresses as the console lists them (`GET /console/api/wallets/:id/addresses`,
 * server/src/wallets/addressRoutes.ts). Types only (see ../views.ts).
 */

/** One address of the wallet: the API's address (`GET /v1/wallets/:id/addresses`) and what it is for. */
export interface ConsoleAddress {
  id: number;
  /** deposit: handed out (or a treasury address); account: an account-tag chain's account; gas_station: pays token sweeps' fees. */
  kind: 'deposit' | 'account' | 'gas_station';
  address: string;
  destinationTag: number | null;
  index: number;
  /** The derivation path, `pkcs11:<key label>` for a key generated in the token, or `awskms:<key id>` for a key in AWS KMS. */
  path: string;
  label: string | null;
  createdAt: string;
  /**
   * Present when the key never leaves a signer outside walletd (issue 45): `token`, generated inside
   * the PKCS#11 token and signing there (§3); `kms`, an AWS KMS key that signs in KMS (§4).
   */
  keyHeldIn?: 'token' | 'kms';
}

/** A page of a wallet's addresses, oldest first; `next` is the `after` of the following page. */
export interface ConsoleAddressPage {
  wallet: { id: number; name: string; chain: string; network: string };
  addresses: ConsoleAddress[];
  next: string | null;
}
