import type { Instruction, KeyPairSigner, Transaction } from '@solana/kit';
import type { LiteSVM } from 'litesvm';

/**
 * AN ADAPTER OVER A REAL ENGINE, NOT A NODE. litesvm (the in-process Solana VM with the system, SPL Token
 * and associated-token programs) executes every transaction; it has no RPC server, so this serves
 * the JSON-RPC subset walletd's Solana reader uses, on loopback, built from what the engine really
 * did: each executed transaction is sealed into a block of its own (the next slot), with the
 * lamport and token balances of its accounts read from the engine before and after it, and its fee
 * the lamports its accounts lost in total (what the engine charged). Slots can be skipped; the
 * finalized slot trails the tip by `finalityDepth` blocks; the blockhash stays valid for 150
 * blocks and then expires in the engine too (`expireBlockhash`). Nothing here decides what a
 * transaction does: the engine does.
 */
export interface SolanaSvmNode {
  url: string;
  svm: LiteSVM;
  /** A funded key (genesis money) that pays deposits in tests. */
  faucet: KeyPairSigner;
  readonly slot: bigint;
  readonly blockHeight: bigint;
  /** Blocks below the tip the finalized commitment trails (default 0: every block is final at once). */
  finalityDepth: number;
  /** Priority fee every getRecentPrioritizationFees entry reports (micro-lamports per CU). */
  priorityFee: bigint;
  /** Executes a signed transaction in the engine and seals it into the next slot's block; `err` is the engine's error. */
  execute(tx: Transaction): { signature: string; slot: bigint; err: unknown };
  /** An empty block at the next slot. */
  produceBlocks(n?: number): void;
  /** Slots with no block (a leader that produced nothing). */
  skipSlots(n: number): void;
  /** SOL from the faucet in a real transfer (in a block). */
  sendSol(to: string, lamports: bigint): Promise<string>;
  /** A new mint (the faucet is its authority) of `decimals`, under the SPL Token program or `program` (Token-2022). */
  createMint(decimals: number, program?: string): Promise<string>;
  /** Mints into `owner`'s associated token account (created if missing), in a block. */
  mintTo(mint: string, owner: string, amount: bigint, decimals: number, program?: string): Promise<string>;
  /** Transfers from the faucet's associated token account to `destination` (any token account), in a block. */
  transferToken(mint: string, destination: string, amount: bigint, decimals: number, program?: string): Promise<string>;
  /** Any instructions, paid by the faucet and signed by the signers they name, executed and sealed. */
  run(instructions: Instruction[]): Promise<{ signature: string; err: unknown }>;
  /** Every JSON-RPC method called, in order. */
  calls: string[];
  close(): Promise<void>;
}

export interface TokenState {
  mint: string;
  owner: string;
  amount: bigint;
  program: string;
  decimals: number;
}

export interface BlockTx {
  signature: string;
  wire: string;
  keys: string[];
  message: unknown;
  meta: Record<string, unknown>;
}

export interface Block {
  slot: bigint;
  height: bigint;
  hash: string;
  parentSlot: bigint;
  previousBlockhash: string;
  time: number;
  txs: BlockTx[];
}
