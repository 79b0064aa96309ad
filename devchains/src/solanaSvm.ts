import { createHash } from 'node:crypto';
import {
  type Address,
  type Transaction,
  address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  type Instruction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Blockhash,
} from '@solana/kit';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintToCheckedInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import { LiteSVM } from 'litesvm';
import { closeServer } from './closeServer';
import { rpcError } from './solanaErrors';
import { type ExtraMethods, serveSolanaRpc } from './solanaRpc';
import { readTokenState, tokenBalancesOf } from './solanaTokens';
import type { Block, BlockTx, SolanaSvmNode } from './solanaTypes';
import { BaseError } from '@walletd/core';

export { rpcError } from './solanaErrors';
export type { Block, BlockTx, SolanaSvmNode, TokenState } from './solanaTypes';

const lamportsOf = (n: bigint) => n as Parameters<LiteSVM['airdrop']>[1];

export interface SolanaSvmOptions {
  finalityDepth?: number;
  priorityFee?: bigint;
  /** Loopback port of the JSON-RPC server (0: any free one). */
  port?: number;
  host?: string;
  /** Methods served beside the standard ones (the playground's funding method). */
  extra?: ExtraMethods;
}
const base58 = (bytes: Uint8Array) => getBase58Decoder().decode(bytes);
const hashOf = (text: string) => base58(createHash('sha256').update(text).digest());

/** Starts the engine with a funded faucet and serves it over JSON-RPC (see solanaTypes.ts for what is real). */
export async function startSolanaSvm(options: SolanaSvmOptions = {}): Promise<SolanaSvmNode> {
  const svm = new LiteSVM();
  const faucet = await generateKeyPairSigner();
  const funded = svm.airdrop(faucet.address, lamportsOf(100_000n * 1_000_000_000n));
  if (!funded || ('err' in funded && typeof funded.err === 'function'))
    throw new BaseError('devchain_failed', 'litesvm did not fund the faucet');
  const genesis = hashOf(`litesvm-genesis-${faucet.address}`);
  const blocks = new Map<bigint, Block>();
  const bySignature = new Map<string, { block: Block; tx: BlockTx }>();
  const calls: string[] = [];
  let slot = 0n;
  let height = 0n;
  let last: Block = { slot: 0n, height: 0n, hash: genesis, parentSlot: 0n, previousBlockhash: genesis, time: 0, txs: [] };
  blocks.set(0n, last);
  /** The engine's current blockhash and the block height it was issued at. */
  let issuedAt = 0n;
  const VALIDITY = 150n;

  const tokenState = (addr: string) => readTokenState(svm, addr);
  const lamports = (addr: string): bigint => svm.getBalance(address(addr)) ?? 0n;
  const tokenBalances = (keys: string[]) => tokenBalancesOf(svm, keys);

  function seal(txs: BlockTx[]): Block {
    slot += 1n;
    height += 1n;
    const block: Block = {
      slot,
      height,
      hash: hashOf(`block-${genesis}-${slot}`),
      parentSlot: last.slot,
      previousBlockhash: last.hash,
      time: Math.floor(Date.now() / 1000),
      txs,
    };
    blocks.set(slot, block);
    for (const tx of txs) bySignature.set(tx.signature, { block, tx });
    last = block;
    // The engine's blockhash lives 150 blocks, as on a cluster.
    if (height > issuedAt + VALIDITY) {
      svm.expireBlockhash();
      issuedAt = height;
    }
    return block;
  }

  function execute(tx: Transaction): { signature: string; slot: bigint; err: unknown } {
    const decoded = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
    if (decoded.version === 1) throw new BaseError('devchain_failed', 'v1 messages are not served here');
    const keys = decoded.staticAccounts as string[];
    const pre = keys.map(lamports);
    const preTokens = tokenBalances(keys);
    const result = svm.sendTransaction(tx);
    const err = 'err' in result && typeof result.err === 'function' ? result.err() : null;
    const post = keys.map(lamports);
    const fee = pre.reduce((a, b) => a + b, 0n) - post.reduce((a, b) => a + b, 0n);
    const signature = getSignatureFromTransaction(tx);
    // Refused before execution (no fee charged): never in a block, as on a cluster.
    if (err !== null && fee === 0n) return { signature, slot: -1n, err };
    const meta = 'meta' in result && typeof result.meta === 'function' ? result.meta() : result;
    const logs = (meta as { logs(): string[] }).logs();
    const header = decoded.header;
    const message = {
      accountKeys: keys,
      header: {
        numRequiredSignatures: header.numSignerAccounts,
        numReadonlySignedAccounts: header.numReadonlySignerAccounts,
        numReadonlyUnsignedAccounts: header.numReadonlyNonSignerAccounts,
      },
      recentBlockhash: decoded.lifetimeToken,
      instructions: decoded.instructions.map((ix) => ({
        programIdIndex: ix.programAddressIndex,
        accounts: ix.accountIndices ?? [],
        data: base58(new Uint8Array(ix.data ?? [])),
        stackHeight: null,
      })),
      addressTableLookups: [],
    };
    const sealed = seal([
      {
        signature,
        wire: getBase64EncodedWireTransaction(tx),
        keys,
        message,
        meta: {
          err: err === null ? null : rpcError(err).json,
          status: err === null ? { Ok: null } : { Err: rpcError(err).json },
          fee: Number(fee),
          preBalances: pre.map(Number),
          postBalances: post.map(Number),
          preTokenBalances: preTokens,
          postTokenBalances: tokenBalances(keys),
          innerInstructions: [],
          logMessages: logs,
          loadedAddresses: { writable: [], readonly: [] },
          rewards: [],
          computeUnitsConsumed: Number((meta as { computeUnitsConsumed(): bigint }).computeUnitsConsumed()),
        },
      },
    ]);
    return { signature, slot: sealed.slot, err };
  }

  const finalizedBlock = (): Block => {
    let b = last;
    for (let i = 0; i < node.finalityDepth && b.slot > 0n; i++) b = blocks.get(b.parentSlot) as Block;
    return b;
  };
  const ledger = {
    svm,
    genesis,
    blocks,
    bySignature,
    calls,
    VALIDITY,
    finalizedBlock,
    lamports,
    tokenState,
    execute,
    get slot() {
      return slot;
    },
    get height() {
      return height;
    },
    get last() {
      return last;
    },
    get issuedAt() {
      return issuedAt;
    },
    get priorityFee() {
      return node.priorityFee;
    },
  };
  const { url, server } = await serveSolanaRpc(ledger, options);

  async function run(instructions: Instruction[]): Promise<{ signature: string; err: unknown }> {
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(faucet, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: svm.latestBlockhash() as Blockhash, lastValidBlockHeight: issuedAt + VALIDITY },
          m,
        ),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    const tx = await signTransactionMessageWithSigners(message);
    const r = execute(tx);
    if (r.slot < 0n) throw new BaseError('devchain_failed', `the engine refused the transaction: ${rpcError(r.err).message}`);
    return { signature: r.signature, err: r.err };
  }
  const ok = async (instructions: Instruction[]) => {
    const r = await run(instructions);
    if (r.err !== null) throw new BaseError('devchain_failed', `the engine failed the transaction: ${rpcError(r.err).message}`);
    return r.signature;
  };
  const ata = async (owner: string, mint: string, program: string = TOKEN_PROGRAM_ADDRESS) =>
    (await findAssociatedTokenPda({ owner: address(owner), mint: address(mint), tokenProgram: address(program) }))[0];

  const node: SolanaSvmNode = {
    url,
    svm,
    faucet,
    get slot() {
      return slot;
    },
    get blockHeight() {
      return height;
    },
    finalityDepth: options.finalityDepth ?? 0,
    priorityFee: options.priorityFee ?? 0n,
    calls,
    execute,
    produceBlocks: (n = 1) => {
      for (let i = 0; i < n; i++) seal([]);
    },
    skipSlots: (n) => {
      slot += BigInt(n);
    },
    run,
    sendSol: (to, amount) => ok([getTransferSolInstruction({ source: faucet, destination: address(to), amount })]),
    // Token-2022 shares these instructions' layouts with the SPL Token program: the same builders, its program address.
    createMint: async (decimals, program = TOKEN_PROGRAM_ADDRESS) => {
      const mint = await generateKeyPairSigner();
      const space = 82n;
      const programAddress = address(program);
      await ok([
        getCreateAccountInstruction({
          payer: faucet,
          newAccount: mint,
          lamports: svm.minimumBalanceForRentExemption(space),
          space,
          programAddress,
        }),
        getInitializeMint2Instruction({ mint: mint.address, decimals, mintAuthority: faucet.address }, { programAddress }),
      ]);
      return mint.address;
    },
    mintTo: async (mint, owner, amount, decimals, program = TOKEN_PROGRAM_ADDRESS) => {
      const account = await ata(owner, mint, program);
      const programAddress = address(program);
      return ok([
        getCreateAssociatedTokenIdempotentInstruction({
          payer: faucet,
          ata: account,
          owner: address(owner),
          mint: address(mint),
          tokenProgram: programAddress,
        }),
        getMintToCheckedInstruction({ mint: address(mint), token: account, mintAuthority: faucet, amount, decimals }, { programAddress }),
      ]);
    },
    transferToken: async (mint, destination, amount, decimals, program = TOKEN_PROGRAM_ADDRESS) => {
      const source = await ata(faucet.address, mint, program);
      const programAddress = address(program);
      if (!tokenState(source)) await node.mintTo(mint, faucet.address, 0n, decimals, program);
      return ok([
        getMintToCheckedInstruction({ mint: address(mint), token: source, mintAuthority: faucet, amount, decimals }, { programAddress }),
        getTransferCheckedInstruction(
          { source, mint: address(mint), destination: address(destination), authority: faucet, amount, decimals },
          { programAddress },
        ),
      ]);
    },
    close: () => closeServer(server),
  };
  return node;
}

export type { Address };
