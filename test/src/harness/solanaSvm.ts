import { createHash } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type Address,
  type KeyPairSigner,
  type Transaction,
  address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
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

const lamportsOf = (n: bigint) => n as Parameters<LiteSVM['airdrop']>[1];

/**
 * TEST ADAPTER OVER A REAL ENGINE. litesvm (the in-process Solana VM with the system, SPL Token
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

interface TokenState {
  mint: string;
  owner: string;
  amount: bigint;
  program: string;
  decimals: number;
}

interface BlockTx {
  signature: string;
  wire: string;
  keys: string[];
  message: unknown;
  meta: Record<string, unknown>;
}

interface Block {
  slot: bigint;
  height: bigint;
  hash: string;
  parentSlot: bigint;
  previousBlockhash: string;
  time: number;
  txs: BlockTx[];
}

const TOKEN_2022 = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
const TX_ERRORS =
  'AccountInUse,AccountLoadedTwice,AccountNotFound,ProgramAccountNotFound,InsufficientFundsForFee,InvalidAccountForFee,AlreadyProcessed,BlockhashNotFound,CallChainTooDeep,MissingSignatureForFee,InvalidAccountIndex,SignatureFailure,InvalidProgramForExecution,SanitizeFailure,ClusterMaintenance,AccountBorrowOutstanding,WouldExceedMaxBlockCostLimit,UnsupportedVersion,InvalidWritableAccount,WouldExceedMaxAccountCostLimit,WouldExceedAccountDataBlockLimit,TooManyAccountLocks,AddressLookupTableNotFound,InvalidAddressLookupTableOwner,InvalidAddressLookupTableData,InvalidAddressLookupTableIndex,InvalidRentPayingAccount,WouldExceedMaxVoteCostLimit,WouldExceedAccountDataTotalLimit,MaxLoadedAccountsDataSizeExceeded,ResanitizationNeeded,InvalidLoadedAccountsDataSizeLimit,UnbalancedTransaction,ProgramCacheHitMaxLimit,CommitCancelled'.split(
    ',',
  );
const IX_ERRORS =
  'GenericError,InvalidArgument,InvalidInstructionData,InvalidAccountData,AccountDataTooSmall,InsufficientFunds,IncorrectProgramId,MissingRequiredSignature,AccountAlreadyInitialized,UninitializedAccount,UnbalancedInstruction,ModifiedProgramId,ExternalAccountLamportSpend,ExternalAccountDataModified,ReadonlyLamportChange,ReadonlyDataModified,DuplicateAccountIndex,ExecutableModified,RentEpochModified,NotEnoughAccountKeys,AccountDataSizeChanged,AccountNotExecutable,AccountBorrowFailed,AccountBorrowOutstanding,DuplicateAccountOutOfSync,InvalidError,ExecutableDataModified,ExecutableLamportChange,ExecutableAccountNotRentExempt,UnsupportedProgramId,CallDepth,MissingAccount,ReentrancyNotAllowed,MaxSeedLengthExceeded,InvalidSeeds,InvalidRealloc,ComputationalBudgetExceeded,PrivilegeEscalation,ProgramEnvironmentSetupFailure,ProgramFailedToComplete,ProgramFailedToCompile,Immutable,IncorrectAuthority,AccountNotRentExempt,InvalidAccountOwner,ArithmeticOverflow,UnsupportedSysvar,IllegalOwner,MaxAccountsDataAllocationsExceeded,MaxAccountsExceeded,MaxInstructionTraceLengthExceeded,BuiltinProgramsMustConsumeComputeUnits,BorshIoError'.split(
    ',',
  );

/** The engine's error in the RPC's JSON form ({"InstructionError":[2,{"Custom":1}]}) and its message. */
export function rpcError(err: unknown): { json: unknown; message: string } {
  if (typeof err === 'number') {
    const name = TX_ERRORS[err] ?? `TransactionError${err}`;
    const message =
      name === 'AlreadyProcessed'
        ? 'This transaction has already been processed'
        : name === 'BlockhashNotFound'
          ? 'Blockhash not found'
          : name === 'InsufficientFundsForFee'
            ? 'Attempt to debit an account but found no record of a prior credit.'
            : name;
    return { json: name, message };
  }
  const e = err as { index?: number; err?: () => unknown; accountIndex?: number };
  if (typeof e.index === 'number' && typeof e.err === 'function') {
    const inner = e.err() as number | { code?: number; msg?: string };
    if (typeof inner === 'number') {
      const name = IX_ERRORS[inner] ?? `InstructionError${inner}`;
      return { json: { InstructionError: [e.index, name] }, message: `Error processing Instruction ${e.index}: ${name}` };
    }
    if (typeof inner.code === 'number')
      return {
        json: { InstructionError: [e.index, { Custom: inner.code }] },
        message: `Error processing Instruction ${e.index}: custom program error: 0x${inner.code.toString(16)}`,
      };
    return { json: { InstructionError: [e.index, { BorshIoError: inner.msg ?? '' }] }, message: `Error processing Instruction ${e.index}` };
  }
  if (typeof e.accountIndex === 'number')
    return { json: { InsufficientFundsForRent: { account_index: e.accountIndex } }, message: 'InsufficientFundsForRent' };
  return { json: String(err), message: String(err) };
}

const base58 = (bytes: Uint8Array) => getBase58Decoder().decode(bytes);
const hashOf = (text: string) => base58(createHash('sha256').update(text).digest());

export async function startSolanaSvm(options: { finalityDepth?: number; priorityFee?: bigint } = {}): Promise<SolanaSvmNode> {
  const svm = new LiteSVM();
  const faucet = await generateKeyPairSigner();
  const funded = svm.airdrop(faucet.address, lamportsOf(100_000n * 1_000_000_000n));
  if (!funded || ('err' in funded && typeof funded.err === 'function')) throw new Error('litesvm did not fund the faucet');
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

  function tokenState(addr: string): TokenState | null {
    const acc = svm.getAccount(address(addr));
    if (!acc.exists) return null;
    const owner = acc.programAddress as string;
    if ((owner !== TOKEN_PROGRAM_ADDRESS && owner !== TOKEN_2022) || acc.data.length < 165) return null;
    const data = acc.data;
    const mint = base58(data.subarray(0, 32));
    const mintAcc = svm.getAccount(address(mint));
    const decimals = mintAcc.exists ? (mintAcc.data[44] as number) : 0;
    return {
      mint,
      owner: base58(data.subarray(32, 64)),
      amount: new DataView(data.buffer, data.byteOffset + 64, 8).getBigUint64(0, true),
      program: owner,
      decimals,
    };
  }
  const lamports = (addr: string): bigint => svm.getBalance(address(addr)) ?? 0n;
  const tokenBalances = (keys: string[]) =>
    keys.flatMap((k, accountIndex) => {
      const t = tokenState(k);
      return t
        ? [
            {
              accountIndex,
              mint: t.mint,
              owner: t.owner,
              programId: t.program,
              uiTokenAmount: { amount: t.amount.toString(), decimals: t.decimals, uiAmountString: t.amount.toString() },
            },
          ]
        : [];
    });

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
    if (decoded.version === 1) throw new Error('v1 messages are not served here');
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
  const txJson = (t: BlockTx) => ({ transaction: { signatures: [t.signature], message: t.message }, meta: t.meta, version: 0 });
  const blockJson = (b: Block, full: boolean) => ({
    blockhash: b.hash,
    previousBlockhash: b.previousBlockhash,
    parentSlot: Number(b.parentSlot),
    blockHeight: Number(b.height),
    blockTime: b.time,
    ...(full ? { transactions: b.txs.map((t) => txJson(t)) } : {}),
  });
  class RpcFailure extends Error {
    constructor(
      readonly code: number,
      message: string,
      readonly data?: unknown,
    ) {
      super(message);
    }
  }

  function parsedTokenAccount(addr: string) {
    const t = tokenState(addr);
    if (!t) return null;
    return {
      program: 'spl-token',
      parsed: {
        type: 'account',
        info: { mint: t.mint, owner: t.owner, tokenAmount: { amount: t.amount.toString(), decimals: t.decimals } },
      },
      space: 165,
    };
  }

  async function handle(method: string, params: unknown[]): Promise<unknown> {
    const context = { slot: Number(slot) };
    const atCommitment = (p: unknown): Block =>
      (p as { commitment?: string } | undefined)?.commitment === 'finalized' ? finalizedBlock() : last;
    switch (method) {
      case 'getGenesisHash':
        return genesis;
      case 'getSlot':
        return (params[0] as { commitment?: string } | undefined)?.commitment === 'finalized'
          ? Number(finalizedBlock().slot)
          : Number(slot);
      case 'getBlockHeight':
        return Number(atCommitment(params[0]).height);
      case 'getBlock': {
        const s = BigInt(params[0] as number);
        const o = (params[1] ?? {}) as { transactionDetails?: string };
        if (s > slot) throw new RpcFailure(-32004, `Block not available for slot ${s}`);
        const b = blocks.get(s);
        if (!b) throw new RpcFailure(-32007, `Slot ${s} was skipped, or missing due to ledger jump to recent snapshot`);
        return blockJson(b, o.transactionDetails !== 'none');
      }
      case 'getLatestBlockhash':
        return { context, value: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: Number(issuedAt + VALIDITY) } };
      case 'getBalance':
        return { context, value: Number(lamports(params[0] as string)) };
      case 'getMinimumBalanceForRentExemption':
        return Number(svm.minimumBalanceForRentExemption(BigInt(params[0] as number)));
      case 'getRecentPrioritizationFees':
        return [{ slot: Number(slot), prioritizationFee: Number(node.priorityFee) }];
      case 'getAccountInfo': {
        const a = params[0] as string;
        const acc = svm.getAccount(address(a));
        if (!acc.exists) return { context, value: null };
        const parsed = parsedTokenAccount(a);
        return {
          context,
          value: {
            lamports: Number(acc.lamports),
            owner: acc.programAddress,
            executable: acc.executable,
            rentEpoch: 0,
            space: acc.data.length,
            data: parsed ?? [Buffer.from(acc.data).toString('base64'), 'base64'],
          },
        };
      }
      case 'getTokenAccountsByOwner': {
        const owner = params[0] as string;
        const { mint } = params[1] as { mint?: string };
        const value = [TOKEN_PROGRAM_ADDRESS, TOKEN_2022].flatMap((program) =>
          svm
            .getProgramAccounts(address(program))
            .map((acc) => ({ pubkey: acc.address as string, acc }))
            .filter(({ pubkey }) => {
              const t = tokenState(pubkey);
              return t !== null && t.owner === owner && (mint === undefined || t.mint === mint);
            })
            .map(({ pubkey, acc }) => ({
              pubkey,
              account: {
                lamports: Number(acc.lamports),
                owner: program,
                executable: false,
                rentEpoch: 0,
                data: parsedTokenAccount(pubkey),
              },
            })),
        );
        return { context, value };
      }
      case 'sendTransaction': {
        const [wire, o] = params as [string, { skipPreflight?: boolean; encoding?: string }];
        if (o?.encoding !== 'base64') throw new RpcFailure(-32602, 'only base64 is served here');
        const tx = getTransactionDecoder().decode(new Uint8Array(Buffer.from(wire, 'base64')));
        const signature = getSignatureFromTransaction(tx);
        if (bySignature.has(signature))
          throw new RpcFailure(-32002, 'Transaction simulation failed: This transaction has already been processed');
        if (!o.skipPreflight) {
          const sim = svm.simulateTransaction(tx);
          if ('err' in sim && typeof sim.err === 'function') {
            const e = rpcError(sim.err());
            throw new RpcFailure(-32002, `Transaction simulation failed: ${e.message}`, { err: e.json });
          }
        }
        const r = execute(tx);
        if (r.slot < 0n)
          throw new RpcFailure(-32002, `Transaction simulation failed: ${rpcError(r.err).message}`, { err: rpcError(r.err).json });
        return signature;
      }
      case 'getSignatureStatuses': {
        const [sigs] = params as [string[]];
        const fin = finalizedBlock().slot;
        return {
          context,
          value: sigs.map((s) => {
            const found = bySignature.get(s);
            if (!found) return null;
            const final = found.block.slot <= fin;
            return {
              slot: Number(found.block.slot),
              confirmations: final ? null : Number(height - found.block.height),
              err: found.tx.meta.err,
              status: found.tx.meta.status,
              confirmationStatus: final ? 'finalized' : 'confirmed',
            };
          }),
        };
      }
      case 'getTransaction': {
        const found = bySignature.get(params[0] as string);
        if (!found) return null;
        return { slot: Number(found.block.slot), blockTime: found.block.time, ...txJson(found.tx) };
      }
      default:
        throw new RpcFailure(-32601, `Method not found: ${method}`);
    }
  }

  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const call = JSON.parse(body) as { id: unknown; method: string; params?: unknown[] };
      calls.push(call.method);
      handle(call.method, call.params ?? []).then(
        (result) => {
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result }));
        },
        (e: unknown) => {
          const f = e instanceof RpcFailure ? e : new RpcFailure(-32603, (e as Error).message);
          res.setHeader('content-type', 'application/json');
          res.end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: call.id,
              error: { code: f.code, message: f.message, ...(f.data ? { data: f.data } : {}) },
            }),
          );
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

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
    if (r.slot < 0n) throw new Error(`the engine refused the transaction: ${rpcError(r.err).message}`);
    return { signature: r.signature, err: r.err };
  }
  const ok = async (instructions: Instruction[]) => {
    const r = await run(instructions);
    if (r.err !== null) throw new Error(`the engine failed the transaction: ${rpcError(r.err).message}`);
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
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return node;
}

export type { Address };
