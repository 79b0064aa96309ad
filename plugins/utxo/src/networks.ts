import type { ChainCapabilities, ChainDefinition } from '@walletd/plugin-kit';
import { type Network, bitcoin } from './libs';
import { BaseError } from '@walletd/plugin-kit';

const { networks } = bitcoin;

/** Per-network parameters: address encoding, the key path, dust and fee floors. */
export interface UtxoNetwork {
  chain: 'bitcoin' | 'dogecoin';
  network: string;
  params: Network;
  /** Witness outputs exist (bitcoin: v0 and taproot); dogecoin has none, so bech32 is refused there. */
  segwit: boolean;
  /** BIP-84 native segwit (bitcoin) or BIP-44 P2PKH (dogecoin). */
  purpose: 84 | 44;
  coinType: number;
  /** Outputs below this (base units) are not standard; change below it goes to the fee. */
  dustLimit: bigint;
  /** Fee-rate floor in base units per virtual byte, whatever the node estimates. */
  minFeeRate: bigint;
}

// Dogecoin's parameters (chainparams.cpp of dogecoin/dogecoin 1.14): P2PKH 0x1e (D…), P2SH 0x16.
const dogecoin: Network = {
  messagePrefix: '\x19Dogecoin Signed Message:\n',
  bech32: 'doge',
  bip32: { public: 0x02facafd, private: 0x02fac398 },
  pubKeyHash: 0x1e,
  scriptHash: 0x16,
  wif: 0x9e,
};
const dogecoinTestnet: Network = {
  ...dogecoin,
  bech32: 'tdge',
  bip32: { public: 0x043587cf, private: 0x04358394 },
  pubKeyHash: 0x71,
  scriptHash: 0xc4,
  wif: 0xf1,
};
const dogecoinRegtest: Network = { ...dogecoinTestnet, bech32: 'dcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef };

export const UTXO_NETWORKS: UtxoNetwork[] = [
  {
    chain: 'bitcoin',
    network: 'mainnet',
    params: networks.bitcoin,
    segwit: true,
    purpose: 84,
    coinType: 0,
    dustLimit: 546n,
    minFeeRate: 1n,
  },
  {
    chain: 'bitcoin',
    network: 'testnet',
    params: networks.testnet,
    segwit: true,
    purpose: 84,
    coinType: 1,
    dustLimit: 546n,
    minFeeRate: 1n,
  },
  {
    chain: 'bitcoin',
    network: 'signet',
    params: networks.testnet,
    segwit: true,
    purpose: 84,
    coinType: 1,
    dustLimit: 546n,
    minFeeRate: 1n,
  },
  {
    chain: 'bitcoin',
    network: 'regtest',
    params: networks.regtest,
    segwit: true,
    purpose: 84,
    coinType: 1,
    dustLimit: 546n,
    minFeeRate: 1n,
  },
  // Dogecoin's dust and relay floor are 0.01 DOGE (1,000,000 base units per kB: 1,000 per byte).
  {
    chain: 'dogecoin',
    network: 'mainnet',
    params: dogecoin,
    segwit: false,
    purpose: 44,
    coinType: 3,
    dustLimit: 1_000_000n,
    minFeeRate: 1_000n,
  },
  {
    chain: 'dogecoin',
    network: 'testnet',
    params: dogecoinTestnet,
    segwit: false,
    purpose: 44,
    coinType: 1,
    dustLimit: 1_000_000n,
    minFeeRate: 1_000n,
  },
  {
    chain: 'dogecoin',
    network: 'regtest',
    params: dogecoinRegtest,
    segwit: false,
    purpose: 44,
    coinType: 1,
    dustLimit: 1_000_000n,
    minFeeRate: 1_000n,
  },
];

export function utxoNetwork(chain: string, network: string): UtxoNetwork {
  const n = UTXO_NETWORKS.find((x) => x.chain === chain && x.network === network);
  if (!n) throw new BaseError('plugin_invalid', `@walletd/plugin-utxo does not serve ${chain}/${network}`);
  return n;
}

/** Default thresholds: 2 on bitcoin mainnet per common exchange practice is too few; 3 / 6 for dogecoin. */
/** Several recipients in one transaction; no memo (OP_RETURN is not offered) and no tag. */
const UTXO_CAPABILITIES: ChainCapabilities = { memo: false, destinationTag: false, multipleOutputs: true, feePayer: false };

const BTC = { symbol: 'BTC', decimals: 8 };
const DOGE = { symbol: 'DOGE', decimals: 8 };

export const UTXO_CHAINS: ChainDefinition[] = [
  {
    chain: 'bitcoin',
    addressing: 'key-per-address',
    capabilities: UTXO_CAPABILITIES,
    // A token key signs P2WPKH / P2PKH inputs (ECDSA); Taproot's Schnorr has no PKCS#11 mechanism.
    keyHeldInToken: 'secp256k1',
    // MAX_MONEY: nodes refuse larger outputs (bad-txns-vout-toolarge).
    amountCeiling: { native: 21_000_000n * 100_000_000n, token: 21_000_000n * 100_000_000n },
    networks: [
      { network: 'mainnet', defaultConfirmations: 3, finality: 'confirmations', testnet: false, native: BTC },
      { network: 'testnet', defaultConfirmations: 3, finality: 'confirmations', testnet: true, native: BTC },
      { network: 'signet', defaultConfirmations: 3, finality: 'confirmations', testnet: true, native: BTC },
      { network: 'regtest', defaultConfirmations: 1, finality: 'confirmations', testnet: true, native: BTC },
    ],
  },
  {
    chain: 'dogecoin',
    addressing: 'key-per-address',
    capabilities: UTXO_CAPABILITIES,
    // A token key signs P2WPKH / P2PKH inputs (ECDSA); Taproot's Schnorr has no PKCS#11 mechanism.
    keyHeldInToken: 'secp256k1',
    // Dogecoin Core's MAX_MONEY, 10 000 000 000 DOGE.
    amountCeiling: { native: 10_000_000_000n * 100_000_000n, token: 10_000_000_000n * 100_000_000n },
    networks: [
      { network: 'mainnet', defaultConfirmations: 6, finality: 'confirmations', testnet: false, native: DOGE },
      { network: 'testnet', defaultConfirmations: 6, finality: 'confirmations', testnet: true, native: DOGE },
      { network: 'regtest', defaultConfirmations: 1, finality: 'confirmations', testnet: true, native: DOGE },
    ],
  },
];
