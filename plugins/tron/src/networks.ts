import type { ChainCapabilities, ChainDefinition } from '@walletd/plugin-kit';

/**
 * A Tron transaction pays one recipient (one contract per transaction) and can carry a memo
 * (`raw_data.data`, charged the network's memo fee); there is no destination tag and no fee payer.
 */
export const TRON_CAPABILITIES: ChainCapabilities = { memo: true, destinationTag: false, multipleOutputs: false, feePayer: false };

/**
 * Final by default once the node's solidified block covers the deposit (`/walletsolidity/getnowblock`:
 * 19 of the 27 super representatives have built on it, about 57 s). `defaultConfirmations` applies
 * when the operator sets `finality: 'confirmations'`. `devnet` is a local network name for tests
 * (a recorded-response server or a private java-tron); it carries no value.
 */
export const TRON_NETWORKS = ['mainnet', 'nile', 'shasta', 'devnet'] as const;

export const TRON_CHAINS: ChainDefinition[] = [
  {
    chain: 'tron',
    addressing: 'key-per-address',
    capabilities: TRON_CAPABILITIES,
    keyHeldInToken: 'secp256k1',
    // TRX amounts are int64 in the transaction protobuf; TRC-20 amounts are uint256.
    amountCeiling: { native: 2n ** 63n - 1n, token: 2n ** 256n - 1n },
    networks: TRON_NETWORKS.map((network) => ({
      network,
      defaultConfirmations: 19,
      finality: 'finalized' as const,
      testnet: network !== 'mainnet',
      native: { symbol: 'TRX', decimals: 6 },
    })),
  },
];

export const servesNetwork = (chain: string, network: string): boolean =>
  chain === 'tron' && (TRON_NETWORKS as readonly string[]).includes(network);
