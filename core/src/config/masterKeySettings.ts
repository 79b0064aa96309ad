/**
 * A master key inside a PKCS#11 token (docs/operate/keys-and-hsms.md). The PIN is never in the
 * config file: it is read from the environment variable `pinEnv` names or from the file `pinFile`
 * names (a mounted secret).
 */
export interface Pkcs11KeySettings {
  /** The vendor's PKCS#11 library, e.g. /usr/lib/softhsm/libsofthsm2.so or a Luna / CloudHSM client library. */
  module: string;
  /** The token by its label (preferred: slot numbers change when tokens are added), or by slot id. */
  tokenLabel?: string;
  slot?: number;
  pinEnv?: string;
  pinFile?: string;
  /** Label of the AES-256 key `walletd keys init-token` created. */
  keyLabel: string;
}

export interface MasterKeySettings {
  /** null: the key file (`masterKeyFile`, `<dataDir>/master.key`) or WALLETD_MASTER_KEY. */
  pkcs11: Pkcs11KeySettings | null;
  /**
   * During a rotation only: where the key the older envelopes are wrapped under lives. walletd
   * opens those with it and seals everything new with the current key until `walletd keys rotate`
   * has re-wrapped them all and `walletd keys verify` has passed.
   */
  previous: { file: string } | { pkcs11: Pkcs11KeySettings } | null;
  /**
   * New gas stations get a key pair generated inside the token (`pkcs11`), which signs their top-ups
   * there, instead of a key derived from the wallet's mnemonic. Chains whose definition declares
   * `keyHeldInToken` (EVM, Tron: secp256k1; Solana: Ed25519, the sweeps' fee payer); false by default.
   */
  gasStationsInToken: boolean;
}

const pkcs11Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['module', 'keyLabel'],
  properties: {
    module: { type: 'string', minLength: 1 },
    tokenLabel: { type: 'string', minLength: 1 },
    slot: { type: 'integer', minimum: 0 },
    pinEnv: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
    pinFile: { type: 'string', minLength: 1 },
    keyLabel: { type: 'string', minLength: 1 },
  },
} as const;

export const masterKeySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    pkcs11: { oneOf: [{ type: 'null' }, pkcs11Schema] },
    gasStationsInToken: { type: 'boolean' },
    previous: {
      oneOf: [
        { type: 'null' },
        { type: 'object', additionalProperties: false, required: ['file'], properties: { file: { type: 'string', minLength: 1 } } },
        { type: 'object', additionalProperties: false, required: ['pkcs11'], properties: { pkcs11: pkcs11Schema } },
      ],
    },
  },
} as const;

export const DEFAULT_MASTER_KEY: MasterKeySettings = { pkcs11: null, previous: null, gasStationsInToken: false };
