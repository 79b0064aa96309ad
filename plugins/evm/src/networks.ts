import type { ChainCapabilities, ChainDefinition } from '@walletd/plugin-kit';

/** Native value and ERC-20 amounts are uint256. */
const UINT256 = 2n ** 256n - 1n;
export const UINT256_BOTH = { native: UINT256, token: UINT256 };

/** A plain EVM transfer carries one recipient and no memo (calldata is the token call). */
export const EVM_CAPABILITIES: ChainCapabilities = { memo: false, destinationTag: false, multipleOutputs: false, feePayer: false };

/**
 * Default confirmation thresholds: the operator overrides them per network. Ethereum mainnet and
 * sepolia can wait for the `finalized` tag instead; devnet is the local anvil chain.
 */
export const EVM_CHAINS: ChainDefinition[] = [
  {
    chain: 'ethereum',
    addressing: 'key-per-address',
    capabilities: EVM_CAPABILITIES,
    keyHeldInToken: 'secp256k1',
    amountCeiling: UINT256_BOTH,
    networks: [
      {
        network: 'mainnet',
        chainId: 1,
        defaultConfirmations: 12,
        finality: 'confirmations',
        testnet: false,
        native: { symbol: 'ETH', decimals: 18 },
      },
      {
        network: 'sepolia',
        chainId: 11155111,
        defaultConfirmations: 12,
        finality: 'confirmations',
        testnet: true,
        native: { symbol: 'ETH', decimals: 18 },
      },
      {
        network: 'devnet',
        chainId: 31337,
        defaultConfirmations: 2,
        finality: 'confirmations',
        testnet: true,
        native: { symbol: 'ETH', decimals: 18 },
      },
    ],
  },
  {
    chain: 'bsc',
    addressing: 'key-per-address',
    capabilities: EVM_CAPABILITIES,
    keyHeldInToken: 'secp256k1',
    amountCeiling: UINT256_BOTH,
    networks: [
      {
        network: 'mainnet',
        chainId: 56,
        defaultConfirmations: 15,
        finality: 'confirmations',
        testnet: false,
        native: { symbol: 'BNB', decimals: 18 },
      },
      {
        network: 'testnet',
        chainId: 97,
        defaultConfirmations: 15,
        finality: 'confirmations',
        testnet: true,
        native: { symbol: 'tBNB', decimals: 18 },
      },
    ],
  },
  {
    chain: 'polygon',
    addressing: 'key-per-address',
    capabilities: EVM_CAPABILITIES,
    keyHeldInToken: 'secp256k1',
    amountCeiling: UINT256_BOTH,
    networks: [
      {
        network: 'mainnet',
        chainId: 137,
        defaultConfirmations: 128,
        finality: 'confirmations',
        testnet: false,
        native: { symbol: 'POL', decimals: 18 },
      },
      {
        network: 'amoy',
        chainId: 80002,
        defaultConfirmations: 128,
        finality: 'confirmations',
        testnet: true,
        native: { symbol: 'POL', decimals: 18 },
      },
    ],
  },
  {
    chain: 'arbitrum',
    addressing: 'key-per-address',
    capabilities: EVM_CAPABILITIES,
    keyHeldInToken: 'secp256k1',
    amountCeiling: UINT256_BOTH,
    networks: [
      {
        network: 'mainnet',
        chainId: 42161,
        defaultConfirmations: 64,
        finality: 'confirmations',
        testnet: false,
        native: { symbol: 'ETH', decimals: 18 },
      },
      {
        network: 'sepolia',
        chainId: 421614,
        defaultConfirmations: 64,
        finality: 'confirmations',
        testnet: true,
        native: { symbol: 'ETH', decimals: 18 },
      },
    ],
  },
];
