import type { Chain } from '../chains';
import type { ChainPlugin, TokenDefinition } from '../contract';

/** A transfer a scenario block must yield. Optional fields are compared when given. */
export interface ExpectedTransfer {
  txHash: string;
  eventIndex: number;
  /** Display form; compared in the plugin's match form. */
  to: string;
  /** Base units, as a decimal string. */
  amount: string;
  assetKey: string;
  /** The sender in display form: the transfer must carry `from` and `fromKey` (its match form). */
  from?: string;
  eventType?: string;
  logIndex?: number;
  /** Chain fields the transfer's `extra` must hold (memo, destinationTag…), compared exactly. */
  extra?: Record<string, unknown>;
}

/** The block reference `detect` must report: number, hash and parent, exactly. */
export interface ExpectedHeader {
  number: bigint;
  hash: string;
  parentHash: string;
}

/** The cases the kit asks every chain family for; a family without one says why (`notCovered`). */
export const DEPOSIT_CASES = [
  'failed-transaction',
  'unlisted-token',
  'look-alike-token',
  'linked-headers',
  'reorg',
  'amount-above-2^53',
  'from',
  'log-index',
  'memo',
  'destination-tag',
  'own-change',
  'internal-movement',
  'zero-amount',
] as const;
export type DepositCase = (typeof DEPOSIT_CASES)[number];

/** What a plugin hands the kit: real or recorded blocks with the facts they must yield. */
export interface ConformanceBlock {
  name: string;
  chain: Chain;
  network: string;
  raw: Uint8Array;
  /** Addresses in display form that the company watches. */
  watched: string[];
  tokens?: TokenDefinition[];
  expected: ExpectedTransfer[];
  header?: ExpectedHeader;
  /**
   * What this block exercises, for the coverage check: e.g. `failed-transaction` for a reverted
   * transaction to a watched address (expected: nothing), `zero-amount` for a transfer of 0 to a
   * watched address (expected: nothing; address poisoning). `amount-above-2^53`, `from`, `log-index`
   * and `linked-headers` are also read off `expected` and `header`.
   */
  covers?: DepositCase[];
  /**
   * The raw block is a partial answer (why, in words): part of what detect needs failed or does
   * not match the block (EVM call traces that errored, came back null or short). detect must
   * throw (a failed read: the follower retries the block), never return the block with fewer
   * transfers; `expected` is then empty.
   */
  unreadable?: string;
}

/**
 * A reorg as the follower meets it: the branch first followed (`orphaned`) and the one that
 * replaced it (`replacement`), both on `ancestor`, each a list of raw blocks in height order.
 * Transfers of the orphaned branch the replacement does not carry are retracted; those it carries
 * again keep their identity and content.
 */
export interface ConformanceReorg {
  name: string;
  chain: Chain;
  network: string;
  watched: string[];
  tokens?: TokenDefinition[];
  ancestor: ExpectedHeader;
  orphaned: Uint8Array[];
  replacement: Uint8Array[];
}

export interface ConformanceSubject {
  plugin: ChainPlugin;
  /** The chains/networks to check (each with its own address rules). */
  targets: { chain: Chain; network: string }[];
  blocks: ConformanceBlock[];
  reorgs?: ConformanceReorg[];
  /** Known derivation vectors: a mnemonic's address at an index. */
  vectors?: { chain: Chain; network: string; mnemonic: string; index: number; address: string }[];
  /** Each case the scenarios do not exercise, with the reason (printed; a stale entry fails). */
  notCovered?: Partial<Record<DepositCase, string>>;
  /**
   * For blocks an engine produces while the suite runs: start it and fill those blocks' `raw` and
   * `expected` here (names, `covers` and the list of blocks are fixed when the suite is built).
   */
  before?(): Promise<void>;
  after?(): Promise<void>;
}
