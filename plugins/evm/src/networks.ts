import type { ChainCapabilities, ChainDefinition } from '@walletd/plugin-kit';

/** A plain EVM transfer carries one recipient and no memo (calldata is the token call). */
const EVM_CAPABILITIES: ChainCapabilities = { memo: false, destinationTag: false, multipleOutputs: false, feePayer: false };

/**
 * Default confirmation thresholds: the operator overrides them per network. Ethereum mainnet and
 * sepolia can wait for the `finalized` tag instead; devnet is the local anvil chain.
 */
export const EVM_CHAINS: ChainDefinition[] = [
  {
    chain: 'ethereum',
    addressing: 'key-per-address',
    capabilities: EVM_CAPABILITIES,
    networks: [
      { network: 'mainnet', chainId: 1, defaultConfirmations: 12, finality: 'confirmations' },
      { network: 'sepolia', chainId: 11155111, defaultConfirmations: 12, finality: 'confirmations' },
      { network: 'devnet', chainId: 31337, defaultConfirmations: 2, finality: 'confirmations' },
    ],
  },
  {
    chain: 'bsc',
    addressing: 'key-per-address',
    capabilities: EVM_CAPABILITIES,
    networks: [
      { network: 'mainnet', chainId: 56, defaultConfirmations: 15, finality: 'confirmations' },
      { network: 'testnet', chainId: 97, defaultConfirmations: 15, finality: 'confirmations' },
    ],
  },
  {
    chain: 'polygon',
    addressing: 'key-per-address',
    capabilities: EVM_CAPABILITIES,
    networks: [
      { network: 'mainnet', chainId: 137, defaultConfirmations: 128, finality: 'confirmations' },
      { network: 'amoy', chainId: 80002, defaultConfirmations: 128, finality: 'confirmations' },
    ],
  },
  {
    chain: 'arbitrum',
    addressing: 'key-per-address',
    capabilities: EVM_CAPABILITIES,
    networks: [
      { network: 'mainnet', chainId: 42161, defaultConfirmations: 64, finality: 'confirmations' },
      { network: 'sepolia', chainId: 421614, defaultConfirmations: 64, finality: 'confirmations' },
    ],
  },
];
