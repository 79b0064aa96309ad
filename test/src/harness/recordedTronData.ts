import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as TronWeb from 'tronweb';

/**
 * What the recorded Tron node (recordedTronNode.ts) answers from and with: the recorded fixtures,
 * mainnet's USDT and chain parameters, Tron's address forms, and the payer account that signs the
 * transactions a test adds. Apart from the node so a test can read them without starting one.
 */

/** tronweb, loaded on first use: every test file imports the harness, few need it. */
let loaded: typeof TronWeb.utils | null = null;
export const tronUtils = (): typeof TronWeb.utils => {
  loaded ??= (require('tronweb') as typeof TronWeb).utils;
  return loaded;
};

export const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'tron');
export const tronFixture = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));

/** Mainnet USDT (TRC-20, 6 decimals). */
export const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
export const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
/** The energy the recorded USDT transfer 0130dfde used (energy_usage_total 130285 = 29650 + penalty 100635). */
export const RECORDED_USDT_ENERGY = { energy_used: 29650, energy_penalty: 100635 };

export const CHAIN_PARAMETERS = [
  { key: 'getTransactionFee', value: 1000 },
  { key: 'getEnergyFee', value: 100 },
  { key: 'getCreateAccountFee', value: 100000 },
  { key: 'getCreateNewAccountFeeInSystemContract', value: 1000000 },
  { key: 'getMemoFee', value: 1000000 },
  { key: 'getMaxFeeLimit', value: 15000000000 },
  { key: 'getFreeNetLimit', value: 600 },
];
export const param = (key: string) => BigInt(CHAIN_PARAMETERS.find((p) => p.key === key)?.value ?? 0);

export type CallOutcome = 'SUCCESS' | 'REVERT' | 'OUT_OF_ENERGY' | 'NO_LOG';

export const hex20 = (address: string): string => {
  if (/^41[0-9a-fA-F]{40}$/.test(address)) return address.slice(2).toLowerCase();
  if (/^[0-9a-f]{40}$/.test(address)) return address;
  const bytes = tronUtils().crypto.decode58Check(address);
  if (bytes === false || bytes.length !== 21 || bytes[0] !== 0x41) throw new Error(`not a Tron address: ${address}`);
  return Buffer.from(bytes.slice(1)).toString('hex');
};
export const tronBase58 = (address: string): string =>
  tronUtils().crypto.getBase58CheckAddress([0x41, ...Buffer.from(hex20(address), 'hex')]);
export const word = (h: string) => h.padStart(64, '0');
export const sha256hex = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

/** The payer: m/44'/195'/0'/0/0 of the well-known development mnemonic (not a walletd wallet). */
const PAYER_MNEMONIC = 'test test test test test test test test test test test junk';
let payerAccount: { address: string; privateKey: string } | null = null;
const payer = () => {
  payerAccount ??= tronUtils().accounts.generateAccountWithMnemonic(PAYER_MNEMONIC, "m/44'/195'/0'/0/0");
  return payerAccount;
};
export const PAYER = {
  get address(): string {
    return payer().address;
  },
  get privateKey(): string {
    return payer().privateKey.replace(/^0x/, '');
  },
};
