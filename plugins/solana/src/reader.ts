import {
  type AssetRef,
  type Balance,
  type ChainReader,
  type ReaderOptions,
  NodeCallError,
  concatBytes,
  readerJsonRpcClient,
} from '@walletd/plugin-kit';
import { associatedTokenAccount } from './verbs/tokenAccounts';
import { SYSTEM_ACCOUNT_SIZE, parseTokenContract } from './programs';

/**
 * getBlock's answers for a slot without a block: -32007 "Slot … was skipped, or missing due to
 * ledger jump to recent snapshot", -32009 "… missing in long-term storage". -32004 ("Block not
 * available for slot") is a block not yet available: an error, retried next round. A block a node
 * wrongly calls skipped cannot pass unseen: the next block's parent would not be the last one
 * recorded, and the follower stops the chain after rewinding to it three times.
 */
export const SKIPPED_SLOT_CODES: ReadonlySet<number> = new Set([-32007, -32009]);

export interface SolanaReader extends ChainReader {
  call<T>(method: string, params: unknown[]): Promise<T>;
  /** A publishing call: one attempt, never repeated on a transport failure. */
  send<T>(method: string, params: unknown[]): Promise<T>;
  /** Lamports an account of `size` bytes needs to be rent exempt (cached per size). */
  rentExemptMinimum(size: number): Promise<bigint>;
  lamports(address: string): Promise<bigint>;
  /** The token amount of a token account, or null when the account does not exist. */
  tokenAmount(account: string): Promise<bigint | null>;
}

const big = (v: number | string): bigint => BigInt(v);
const isSkipped = (e: unknown) => e instanceof NodeCallError && e.node.kind === 'rpc' && SKIPPED_SLOT_CODES.has(e.node.rpcCode ?? 0);

/**
 * JSON-RPC reads for the follower and the withdrawal verbs, through core's client (deadlines,
 * retried reads, lossless numbers). Heights are slots. The head is the `confirmed` slot (getBlock
 * serves confirmed and finalized blocks only); `finalized()` is the `finalized` slot. `fetchBlock`
 * splices the node's getBlock answer into `{"slot":n,"block":…}` without parsing it: the worker
 * parses once. `blockHash(0)` is the genesis hash (what identifies the cluster).
 */
export function createSolanaReader(options: ReaderOptions): SolanaReader {
  const rpc = readerJsonRpcClient(options, '2.0');
  const call = async <T>(method: string, params: unknown[]): Promise<T> => (await rpc.call<T>(method, params)).result;
  const rent = new Map<number, bigint>();

  async function rentExemptMinimum(size: number): Promise<bigint> {
    let v = rent.get(size);
    if (v === undefined) {
      v = big(await call<number | string>('getMinimumBalanceForRentExemption', [size]));
      rent.set(size, v);
    }
    return v;
  }

  const lamports = async (address: string) =>
    big((await call<{ value: number | string }>('getBalance', [address, { commitment: 'confirmed' }])).value);

  async function tokenAmount(account: string): Promise<bigint | null> {
    const info = await call<{ value: { data: { parsed?: { info?: { tokenAmount?: { amount: string } } } } } | null }>('getAccountInfo', [
      account,
      { encoding: 'jsonParsed', commitment: 'confirmed' },
    ]);
    if (!info.value) return null;
    const amount = info.value.data.parsed?.info?.tokenAmount?.amount;
    return amount === undefined ? null : BigInt(amount);
  }

  async function getBalance(address: string, asset: AssetRef): Promise<Balance> {
    if (asset.contractAddress === null) {
      const total = await lamports(address);
      const keep = await rentExemptMinimum(SYSTEM_ACCOUNT_SIZE);
      return { total, spendable: total > keep ? total - keep : 0n };
    }
    // Every token account the owner has in the mint (under its program); a withdrawal spends the
    // associated one only.
    const { mint, program } = parseTokenContract(asset.contractAddress);
    const accounts = await call<{
      value: { pubkey: string; account: { owner: string; data: { parsed?: { info?: { tokenAmount?: { amount: string } } } } } }[];
    }>('getTokenAccountsByOwner', [address, { mint }, { encoding: 'jsonParsed', commitment: 'confirmed' }]);
    const ata = await associatedTokenAccount(address, mint, program);
    let total = 0n;
    let spendable = 0n;
    for (const a of accounts.value) {
      if (a.account.owner !== program) continue;
      const amount = BigInt(a.account.data.parsed?.info?.tokenAmount?.amount ?? '0');
      total += amount;
      if (a.pubkey === ata) spendable = amount;
    }
    return { total, spendable };
  }

  return {
    call,
    send: async <T>(method: string, params: unknown[]) => (await rpc.call<T>(method, params, { idempotent: false })).result,
    rentExemptMinimum,
    lamports,
    tokenAmount,
    getBalance,
    head: async () => big(await call<number | string>('getSlot', [{ commitment: 'confirmed' }])),
    finalized: async () => big(await call<number | string>('getSlot', [{ commitment: 'finalized' }])),
    fetchBlock: async (slot) => {
      let body: Uint8Array;
      try {
        body = await rpc.callRaw('getBlock', [
          Number(slot),
          { encoding: 'json', transactionDetails: 'full', rewards: false, maxSupportedTransactionVersion: 0, commitment: 'confirmed' },
        ]);
      } catch (e) {
        if (isSkipped(e)) return null;
        throw e;
      }
      return concatBytes([`{"slot":${slot},"block":`, body, '}']);
    },
    blockHash: async (slot) => {
      if (slot === 0n) return call<string>('getGenesisHash', []);
      try {
        const block = await call<{ blockhash: string } | null>('getBlock', [
          Number(slot),
          { transactionDetails: 'none', rewards: false, maxSupportedTransactionVersion: 0, commitment: 'confirmed' },
        ]);
        return block?.blockhash ?? null;
      } catch (e) {
        if (isSkipped(e)) return null;
        throw e;
      }
    },
  };
}
