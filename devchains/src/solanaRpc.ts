import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { address, getSignatureFromTransaction, getTransactionDecoder } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import type { LiteSVM } from 'litesvm';
import { rpcError } from './solanaErrors';
import { TOKEN_2022 } from './solanaTokens';
import type { Block, BlockTx, TokenState } from './solanaSvm';

/** What the JSON-RPC server reads from the ledger the adapter keeps over the engine. */
export interface SolanaLedger {
  svm: LiteSVM;
  genesis: string;
  blocks: Map<bigint, Block>;
  bySignature: Map<string, { block: Block; tx: BlockTx }>;
  readonly slot: bigint;
  readonly height: bigint;
  readonly last: Block;
  readonly issuedAt: bigint;
  readonly priorityFee: bigint;
  VALIDITY: bigint;
  calls: string[];
  finalizedBlock(): Block;
  lamports(addr: string): bigint;
  tokenState(addr: string): TokenState | null;
  execute(tx: ReturnType<ReturnType<typeof getTransactionDecoder>['decode']>): { signature: string; slot: bigint; err: unknown };
}

/** Extra methods a caller serves beside the standard ones (the playground's `walletd_fund`). */
export type ExtraMethods = Record<string, (params: unknown[]) => Promise<unknown>>;

export class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * Serves the JSON-RPC subset walletd's Solana reader uses, on loopback, from the ledger: every
 * answer is read from the engine or from the blocks the adapter sealed around its transactions.
 */
export async function serveSolanaRpc(
  l: SolanaLedger,
  options: { port?: number; host?: string; extra?: ExtraMethods } = {},
): Promise<{ url: string; server: Server }> {
  const { svm, genesis, blocks, bySignature, lamports, tokenState, execute, calls } = l;
  const finalizedBlock = () => l.finalizedBlock();
  const txJson = (t: BlockTx) => ({ transaction: { signatures: [t.signature], message: t.message }, meta: t.meta, version: 0 });
  const blockJson = (b: Block, full: boolean) => ({
    blockhash: b.hash,
    previousBlockhash: b.previousBlockhash,
    parentSlot: Number(b.parentSlot),
    blockHeight: Number(b.height),
    blockTime: b.time,
    ...(full ? { transactions: b.txs.map((t) => txJson(t)) } : {}),
  });

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
    const context = { slot: Number(l.slot) };
    const atCommitment = (p: unknown): Block =>
      (p as { commitment?: string } | undefined)?.commitment === 'finalized' ? finalizedBlock() : l.last;
    switch (method) {
      case 'getGenesisHash':
        return genesis;
      case 'getSlot':
        return (params[0] as { commitment?: string } | undefined)?.commitment === 'finalized'
          ? Number(finalizedBlock().slot)
          : Number(l.slot);
      case 'getBlockHeight':
        return Number(atCommitment(params[0]).height);
      case 'getBlock': {
        const s = BigInt(params[0] as number);
        const o = (params[1] ?? {}) as { transactionDetails?: string };
        if (s > l.slot) throw new RpcFailure(-32004, `Block not available for slot ${s}`);
        const b = blocks.get(s);
        if (!b) throw new RpcFailure(-32007, `Slot ${s} was skipped, or missing due to ledger jump to recent snapshot`);
        return blockJson(b, o.transactionDetails !== 'none');
      }
      case 'getLatestBlockhash':
        return { context, value: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: Number(l.issuedAt + l.VALIDITY) } };
      case 'getBalance':
        return { context, value: Number(lamports(params[0] as string)) };
      case 'getMinimumBalanceForRentExemption':
        return Number(svm.minimumBalanceForRentExemption(BigInt(params[0] as number)));
      case 'getRecentPrioritizationFees':
        return [{ slot: Number(l.slot), prioritizationFee: Number(l.priorityFee) }];
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
              confirmations: final ? null : Number(l.height - found.block.height),
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
      default: {
        const extra = options.extra?.[method];
        if (extra) return extra(params);
        throw new RpcFailure(-32601, `Method not found: ${method}`);
      }
    }
  }

  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      let call: { id: unknown; method: string; params?: unknown[] };
      try {
        call = JSON.parse(body);
      } catch {
        // Anything on the loopback may post here; a body that is not JSON must not crash the
        // process hosting the adapter (walletd serve's playground): JSON-RPC's parse error instead.
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
        return;
      }
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
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const url = `http://${options.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;

  return { url, server };
}
