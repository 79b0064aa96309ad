import type { AssetRef, Chain } from '../chains';

/**
 * The chain plugin contract, version 1 (draft: the EVM issue finalises `detect`/`confirm`,
 * the withdrawal issue `build`/`broadcast`/`verify`). The server and the indexer know chains
 * only through this interface, so a chain team ships a plugin without touching them.
 */
export const PLUGIN_API_VERSION = 1;

export interface NetworkDefinition {
  network: string;
  /** Confirmations after which a deposit is final, unless the operator overrides it. */
  defaultConfirmations: number;
}

export interface ChainDefinition {
  chain: Chain;
  networks: NetworkDefinition[];
}

/** A transfer as `detect` reports it: compact, base units as bigint, addresses lowercase where the chain allows. */
export interface DetectedTransfer {
  txHash: string;
  eventIndex: number;
  logIndex?: number;
  blockNumber: bigint;
  blockHash: string;
  from?: string;
  to: string;
  asset: AssetRef;
  amount: bigint;
  eventType: string;
  /** Chain-specific fields carried into the event (destinationTag, memo, inputs/outputs). */
  extra?: Record<string, unknown>;
}

export interface DerivedAddress {
  address: string;
  path: string;
}

export interface ChainPlugin {
  apiVersion: typeof PLUGIN_API_VERSION;
  name: string;
  chains: ChainDefinition[];
  validateAddress(chain: Chain, network: string, address: string): boolean;
  deriveAddress(chain: Chain, network: string, seed: Uint8Array, index: number): DerivedAddress;
  /** Pure: raw block bytes and the watched addresses in, compact transfers out. Runs in a worker. */
  detect(chain: Chain, network: string, rawBlock: Uint8Array, watched: ReadonlySet<string>): DetectedTransfer[];
}
