import { BaseError, type ChainDefinition } from '@walletd/plugin-kit';

/** The chain's name as walletd shows it (`CHAIN_NAME`): no list in walletd has it, this plugin declares it. */
export const CHAIN = 'litecoin';

export interface LitecoinNetwork {
  /** Bech32 human-readable part of the network's native segwit addresses. */
  hrp: string;
  /** SLIP-44 coin type in the BIP-84 path: 2 on mainnet, 1 (every coin's test value) elsewhere. */
  coinType: number;
}

export const NETWORKS: Record<string, LitecoinNetwork> = {
  mainnet: { hrp: 'ltc', coinType: 2 },
  testnet: { hrp: 'tltc', coinType: 1 },
  regtest: { hrp: 'rltc', coinType: 1 },
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
