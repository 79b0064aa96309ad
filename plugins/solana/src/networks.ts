import type { ChainCapabilities, ChainDefinition } from '@walletd/plugin-kit';

/**
 * A Solana transfer pays one recipient and carries no memo here; a token withdrawal from a
 * deposit address that holds no SOL has its fee paid by another address of the wallet
 * (`feePayer`, see withdrawals.ts).
 */
export const SOLANA_CAPABILITIES: ChainCapabilities = { memo: false, destinationTag: false, multipleOutputs: false, feePayer: true };

/**
 * Deposits are final under the node's `finalized` commitment (a supermajority rooted the slot,
 * ~13 s behind the tip). `defaultConfirmations` applies only when the operator chooses
 * `finality: confirmations` (slots behind the confirmed head). `localnet` is a local validator
 * (or the test adapter over litesvm).
 */
const SOL = { symbol: 'SOL', decimals: 9 };

export const SOLANA_CHAINS: ChainDefinition[] = [
  {
    chain: 'solana',
    addressing: 'key-per-address',
    capabilities: SOLANA_CAPABILITIES,
    keyHeldInToken: 'ed25519',
    // u64: lamports and SPL token amounts.
    amountCeiling: { native: 2n ** 64n - 1n, token: 2n ** 64n - 1n },
    networks: [
      { network: 'mainnet', defaultConfirmations: 32, finality: 'finalized', testnet: false, native: SOL },
      { network: 'devnet', defaultConfirmations: 32, finality: 'finalized', testnet: true, native: SOL },
      { network: 'testnet', defaultConfirmations: 32, finality: 'finalized', testnet: true, native: SOL },
      { network: 'localnet', defaultConfirmations: 1, finality: 'finalized', testnet: true, native: SOL },
    ],
  },
];

export function servesNetwork(chain: string, network: string): boolean {
  return SOLANA_CHAINS.some((c) => c.chain === chain && c.networks.some((n) => n.network === network));
}
