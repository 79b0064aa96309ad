import type { ChainCapabilities, ChainDefinition } from '@walletd/plugin-kit';

/**
 * A TON transfer carries a text comment (the memo); one recipient per withdrawal here (a v5r1
 * wallet could send up to 255 messages, walletd sends one); no destination tag, no fee payer.
 */
export const TON_CAPABILITIES: ChainCapabilities = { memo: true, destinationTag: false, multipleOutputs: false, feePayer: false };

/**
 * Heights are masterchain block seqnos. A masterchain block is final once committed (TON's BFT
 * consensus: no reorgs), so deposits are final when the follower reads them (`finalized`, the node's
 * last masterchain block). `localnet` is a local network name for tests (the sandbox adapter).
 */
export const TON_NETWORKS = ['mainnet', 'testnet', 'localnet'] as const;

/**
 * The network's global id, part of a v5r1 wallet's id and so of its address: a v5r1 key has one
 * address on mainnet (-239) and another on testnet (-3), as Tonkeeper and @ton/ton derive them. The
 * sandbox runs mainnet's configuration.
 */
export const NETWORK_GLOBAL_ID: Readonly<Record<string, number>> = { mainnet: -239, testnet: -3, localnet: -239 };

export const TON_CHAINS: ChainDefinition[] = [
  {
    chain: 'ton',
    addressing: 'key-per-address',
    capabilities: TON_CAPABILITIES,
    // Coins are VarUInteger 16 (at most 2^120 - 1), TON and jettons alike.
    amountCeiling: { native: 2n ** 120n - 1n, token: 2n ** 120n - 1n },
    // Storage fees are taken from an account's balance by the chain itself, with no transfer to index.
    unrecordedDebit: { below: 10_000_000n, why: 'storage fees the chain takes from the account (up to 0.01 TON)' },
    // A wallet contract's key is Ed25519: a token signs it with CKM_EDDSA (issue 45 §3).
    keyHeldInToken: 'ed25519',
    networks: TON_NETWORKS.map((network) => ({
      network,
      defaultConfirmations: 1,
      finality: 'finalized' as const,
      testnet: network !== 'mainnet',
      native: { symbol: 'TON', decimals: 9 },
    })),
  },
];

export const servesNetwork = (chain: string, network: string): boolean =>
  chain === 'ton' && (TON_NETWORKS as readonly string[]).includes(network);

export const isTestNetwork = (network: string): boolean => network !== 'mainnet';
