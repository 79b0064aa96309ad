import { Address, beginCell, Cell } from '@ton/core';
import {
  type AssetRef,
  BaseError,
  type Balance,
  type ChainReader,
  type ReaderOptions,
  nodeOptionsOf,
  wrongHeightError,
} from '@walletd/plugin-kit';
import { type ToncenterHttp, createToncenterHttp } from './toncenterHttp';
import type { TonBlock } from './detect';

const MASTER_SHARD = '-9223372036854775808';
type StackEntry = [string, unknown];

export interface ShardBlock {
  workchain: number;
  shard: string;
  seqno: number;
}

/** A toncenter v2 transaction item (getTransactions, getBlockTransactionsExt): `data` is the transaction's BOC. */
export interface RawTransactionItem {
  address: { account_address: string };
  data: string;
  transaction_id: { lt: string; hash: string };
  utime: number;
}

export interface AccountInfo {
  balance: bigint;
  state: 'active' | 'uninitialized' | 'frozen';
}

/**
 * The TON reader over toncenter's v2 HTTP API. Heights are masterchain seqnos (final once
 * committed: `finalized()` = `head()`). A block's raw form holds the basechain transactions of every
 * shard block it committed: for each shard of `shards(n)`, the shard blocks after the one
 * `shards(n - 1)` named, each read with `getBlockTransactionsExt` (paged), their transaction BOCs
 * kept as the node sent them.
 */
export interface TonReader extends ChainReader {
  http: ToncenterHttp;
  network: string;
  accountInfo(address: Address): Promise<AccountInfo>;
  runGetMethod(address: Address, method: string, stack?: StackEntry[]): Promise<{ exitCode: number; stack: StackEntry[] }>;
  jettonWalletAddress(master: Address, owner: Address): Promise<Address>;
  jettonBalance(jettonWallet: Address): Promise<bigint>;
  seqno(wallet: Address): Promise<number>;
  /**
   * The account's transactions, newest first: the latest `limit`, or with `from` the `limit` that
   * start at that transaction (inclusive) and go back (toncenter's `lt` + `hash` paging).
   */
  transactions(address: Address, limit: number, from?: RawTransactionItem['transaction_id']): Promise<RawTransactionItem[]>;
  sendBoc(boc: Buffer): Promise<void>;
}

const hexOf = (b64: string) => Buffer.from(b64, 'base64').toString('hex');
const sliceArg = (a: Address): StackEntry => ['tvm.Slice', beginCell().storeAddress(a).endCell().toBoc().toString('base64')];
const num = (entry: StackEntry | undefined): bigint => {
  if (entry?.[0] !== 'num' || typeof entry[1] !== 'string')
    throw new BaseError('node_error', 'a get-method answered something other than a number');
  const text = entry[1];
  return text.startsWith('-') ? -BigInt(text.slice(1)) : BigInt(text);
};
const cellOf = (entry: StackEntry | undefined): Cell => {
  const v = entry?.[1] as { bytes?: string } | undefined;
  if (!v?.bytes) throw new BaseError('node_error', 'a get-method answered something other than a cell');
  return Cell.fromBase64(v.bytes);
};

export function createTonReader(network: string, options: ReaderOptions): TonReader {
  const http = createToncenterHttp(nodeOptionsOf(options));
  const shardsCache = new Map<number, ShardBlock[]>();
  const shards = async (seqno: number): Promise<ShardBlock[]> => {
    const hit = shardsCache.get(seqno);
    if (hit) return hit;
    const r = await http.get<{ shards: { workchain: number; shard: string; seqno: number }[] }>('shards', { seqno });
    const list = r.shards.filter((s) => s.workchain === 0).map((s) => ({ workchain: 0, shard: String(s.shard), seqno: Number(s.seqno) }));
    shardsCache.set(seqno, list);
    if (shardsCache.size > 8) shardsCache.delete(shardsCache.keys().next().value as number);
    return list;
  };
  const header = (seqno: number) =>
    http.get<{ id: { root_hash: string; seqno?: number }; prev_blocks: { root_hash: string }[] }>('getBlockHeader', {
      workchain: -1,
      shard: MASTER_SHARD,
      seqno,
    });

  async function blockTransactions(block: ShardBlock): Promise<RawTransactionItem[]> {
    const out: RawTransactionItem[] = [];
    let after: { after_lt: string; after_hash: string } | undefined;
    for (;;) {
      const r = await http.get<{ transactions: RawTransactionItem[]; incomplete: boolean }>('getBlockTransactionsExt', {
        workchain: block.workchain,
        shard: block.shard,
        seqno: block.seqno,
        count: 256,
        ...(after ?? {}),
      });
      out.push(...r.transactions);
      const last = r.transactions[r.transactions.length - 1];
      if (!r.incomplete || !last) return out;
      after = { after_lt: last.transaction_id.lt, after_hash: last.transaction_id.hash };
    }
  }

  const runGetMethod = async (address: Address, method: string, stack: StackEntry[] = []) => {
    const r = await http.post<{ exit_code: number; stack: StackEntry[] }>('runGetMethod', { address: address.toString(), method, stack });
    return { exitCode: Number(r.exit_code), stack: r.stack };
  };

  const reader: TonReader = {
    http,
    network,
    async head() {
      const r = await http.get<{ last: { seqno: number } }>('getMasterchainInfo');
      return BigInt(r.last.seqno);
    },
    async finalized() {
      return reader.head();
    },
    async fetchBlock(height) {
      const seqno = Number(height);
      const [current, previous, head] = await Promise.all([
        shards(seqno),
        seqno > 0 ? shards(seqno - 1) : Promise.resolve([]),
        header(seqno),
      ]);
      const transactions: TonBlock['transactions'] = [];
      for (const s of current) {
        // The shard blocks this masterchain block committed: after the one the previous named (same
        // shard, or the parent/children around a split or merge), up to this one.
        const before = previous.filter((p) => p.shard === s.shard).map((p) => p.seqno);
        const from =
          before.length > 0 ? Math.max(...before) + 1 : previous.length > 0 ? Math.min(...previous.map((p) => p.seqno)) + 1 : s.seqno;
        for (let n = from; n <= s.seqno; n++)
          for (const item of await blockTransactions({ ...s, seqno: n }))
            transactions.push({ account: Address.parse(item.address.account_address).toRawString(), boc: item.data });
      }
      const block: TonBlock = {
        seqno,
        hash: hexOf(head.id.root_hash),
        parentHash: head.prev_blocks[0] ? hexOf(head.prev_blocks[0].root_hash) : '00'.repeat(32),
        transactions,
      };
      return new TextEncoder().encode(JSON.stringify(block));
    },
    async blockHash(height) {
      let h: Awaited<ReturnType<typeof header>>;
      try {
        h = await header(Number(height));
      } catch {
        return null;
      }
      // Checked like a fetched block's: a hash of another height would read as a reorg of any depth.
      if (h.id.seqno !== undefined && BigInt(h.id.seqno) !== height)
        throw wrongHeightError(options.name, 'getBlockHeader', height, BigInt(h.id.seqno));
      return hexOf(h.id.root_hash);
    },
    async accountInfo(address) {
      const r = await http.get<{ balance: string; state: AccountInfo['state'] }>('getAddressInformation', { address: address.toString() });
      return { balance: BigInt(r.balance), state: r.state };
    },
    runGetMethod,
    async jettonWalletAddress(master, owner) {
      const r = await runGetMethod(master, 'get_wallet_address', [sliceArg(owner)]);
      if (r.exitCode !== 0) throw new BaseError('node_error', `get_wallet_address of ${master.toString()} exited with ${r.exitCode}`);
      return cellOf(r.stack[0]).beginParse().loadAddress();
    },
    async jettonBalance(jettonWallet) {
      const info = await reader.accountInfo(jettonWallet);
      if (info.state !== 'active') return 0n;
      const r = await runGetMethod(jettonWallet, 'get_wallet_data');
      if (r.exitCode !== 0) throw new BaseError('node_error', `get_wallet_data of ${jettonWallet.toString()} exited with ${r.exitCode}`);
      return num(r.stack[0]);
    },
    async seqno(wallet) {
      const info = await reader.accountInfo(wallet);
      if (info.state !== 'active') return 0;
      const r = await runGetMethod(wallet, 'seqno');
      return Number(num(r.stack[0]));
    },
    async transactions(address, limit, from) {
      return http.get<RawTransactionItem[]>('getTransactions', {
        address: address.toString(),
        limit,
        archival: 'true',
        ...(from ? { lt: from.lt, hash: from.hash } : {}),
      });
    },
    async sendBoc(boc) {
      await http.send('sendBoc', { boc: boc.toString('base64') });
    },
    async getBalance(address: string, asset: AssetRef): Promise<Balance> {
      const owner = Address.parse(address);
      if (!asset.contractAddress) {
        const { balance } = await reader.accountInfo(owner);
        return { total: balance, spendable: balance };
      }
      const wallet = await reader.jettonWalletAddress(Address.parse(asset.contractAddress), owner);
      const units = await reader.jettonBalance(wallet);
      return { total: units, spendable: units };
    },
  };
  return reader;
}
