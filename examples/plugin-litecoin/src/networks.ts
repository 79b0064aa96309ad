import { BaseError, type ChainDefinition } from '@walletd/plugin-kit';
import type { Network } from './libs';

/** The chain's name as walletd shows it (`CHAIN_NAME`): no list in walletd has it, this plugin declares it. */
export const CHAIN = 'litecoin';

export interface LitecoinNetwork {
  /** Bech32 human-readable part of the network's native segwit addresses. */
  hrp: string;
  /** SLIP-44 coin type in the BIP-84 path: 2 on mainnet, 1 (every coin's test value) elsewhere. */
  coinType: number;
  /** The network as bitcoinjs-lib takes it (Litecoin Core's chainparams.cpp). */
  params: Network;
}

const MESSAGE_PREFIX = '\x19Litecoin Signed Message:\n';
// Only `bech32` is used (native segwit); the rest completes the network for bitcoinjs-lib.
const test = (hrp: string): Network => ({
  messagePrefix: MESSAGE_PREFIX,
  bech32: hrp,
  bip32: { public: 0x043587cf, private: 0x04358394 },
  pubKeyHash: 0x6f,
  scriptHash: 0x3a,
  wif: 0xef,
});

export const NETWORKS: Record<string, LitecoinNetwork> = {
  mainnet: {
    hrp: 'ltc',
    coinType: 2,
    params: {
      messagePrefix: MESSAGE_PREFIX,
      bech32: 'ltc',
      bip32: { public: 0x0488b21e, private: 0x0488ade4 },
      pubKeyHash: 0x30,
      scriptHash: 0x32,
      wif: 0xb0,
    },
  },
  testnet: { hrp: 'tltc', coinType: 1, params: test('tltc') },
  regtest: { hrp: 'rltc', coinType: 1, params: test('rltc') },
};

/** 84 million LTC, the supply cap, in litoshis: no one transfer can carry more. */
const SUPPLY_CAP = 84_000_000n * 100_000_000n;

/**
 * Litecoin as data (contract 3): walletd's chain table, request validation and OpenAPI chain list
 * are built from this. 2.5-minute blocks: 6 confirmations is 15 minutes on mainnet and testnet;
 * a regtest block is mined on demand, so 1.
 */
export const LITECOIN: ChainDefinition = {
  chain: CHAIN,
  addressing: 'key-per-address',
  capabilities: { memo: false, destinationTag: false, multipleOutputs: true, feePayer: false },
  amountCeiling: { native: SUPPLY_CAP, token: SUPPLY_CAP },
  networks: [
    { network: 'mainnet', testnet: false, native: { symbol: 'LTC', decimals: 8 }, defaultConfirmations: 6, finality: 'confirmations' },
    { network: 'testnet', testnet: true, native: { symbol: 'LTC', decimals: 8 }, defaultConfirmations: 6, finality: 'confirmations' },
    { network: 'regtest', testnet: true, native: { symbol: 'LTC', decimals: 8 }, defaultConfirmations: 1, finality: 'confirmations' },
  ],
};

export function networkOf(chain: string, network: string): LitecoinNetwork {
  const net = chain === CHAIN ? NETWORKS[network] : undefined;
  if (!net)
    throw new BaseError('unprocessable', `walletd-plugin-litecoin serves litecoin mainnet, testnet and regtest, not ${chain}/${network}`);
  return net;
}
