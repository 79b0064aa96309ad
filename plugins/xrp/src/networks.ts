import type { ChainCapabilities, ChainDefinition } from '@walletd/plugin-kit';

/**
 * An XRP Payment pays one destination, carries a destination tag (uint32) and memos; no fee payer.
 * Memos are written as one `Memo` with `MemoType` "text/plain" and the UTF-8 text as `MemoData`.
 */
export const XRP_CAPABILITIES: ChainCapabilities = { memo: true, destinationTag: true, multipleOutputs: false, feePayer: false };

/**
 * A validated ledger is final (the consensus of the network's validators; it is never replaced), so
 * deposits are final once the node's validated ledger covers them: `finalized`, threshold 1.
 * `localnet` is a local network name for tests (a recorded-response server or a stand-alone
 * rippled); it carries no value.
 */
export const XRP_NETWORKS = ['mainnet', 'testnet', 'devnet', 'localnet'] as const;

/** The `network_id` a rippled of each public network reports (`server_info`); mainnet 0. */
export const XRP_NETWORK_IDS: Readonly<Record<string, number>> = { mainnet: 0, testnet: 1, devnet: 2 };

export const XRP_CHAINS: ChainDefinition[] = [
  {
    chain: 'xrp',
    addressing: 'account-tag',
    capabilities: XRP_CAPABILITIES,
    // XRP drops cap at 10^17 (100 billion XRP, the fixed supply); issued currencies are held to the same.
    amountCeiling: { native: 10n ** 17n, token: 10n ** 17n },
    networks: XRP_NETWORKS.map((network) => ({
      network,
      defaultConfirmations: 1,
      finality: 'finalized' as const,
      testnet: network !== 'mainnet',
      native: { symbol: 'XRP', decimals: 6 },
    })),
  },
];

export const servesNetwork = (chain: string, network: string): boolean =>
  chain === 'xrp' && (XRP_NETWORKS as readonly string[]).includes(network);

/** X-addresses carry a test flag: every network but mainnet takes test X-addresses. */
export const isTestNetwork = (network: string): boolean => network !== 'mainnet';
