/** The chain and network the local devnet (anvil) is followed as. */
export const DEVNET_NETWORK = { chain: 'ethereum', network: 'devnet' } as const;
