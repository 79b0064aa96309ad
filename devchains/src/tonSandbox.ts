import { createHash } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Address, Cell, type Transaction, type TupleItem, beginCell, loadMessage, storeMessage } from '@ton/core';
import type { Blockchain, SendMessageResult } from '@ton/sandbox';
import { closeServer } from './closeServer';

/**
 * AN ADAPTER OVER A REAL ENGINE, NOT A NODE: toncenter's HTTP API v2 on loopback, backed by @ton/sandbox
 * (TON's transaction emulator compiled to WebAssembly: the real TVM, wallet and jetton contracts,
 * fees, bounces). No TON node installs here; this lets the plugin's own reader, the follower and a
 * real `walletd serve` run end to end as against toncenter.
 *
 * What is real: every transaction (executed by the emulator, hashed and serialized by it), account
 * states and get-methods. What this adapter makes up: blocks. The sandbox has none, so `mine()`
 * seals the transactions executed since the last call into masterchain block n+1, committing one
 * basechain shard block (seqno n+1, shard 0x8000000000000000), hashes derived from the content.
 * Only the toncenter methods walletd calls are served.
 */
const MASTER_SHARD = '-9223372036854775808';

interface Item {
  account: Address;
  tx: Transaction;
  boc: string;
  hash: string;
  /** The external message that started it, when one did. */
  inHash?: Buffer;
}
interface MadeBlock {
  seqno: number;
  rootHash: string;
  items: Item[];
}

const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');

export class TonSandboxNode {
  url = '';
  readonly blocks: MadeBlock[] = [];
  private pending: Item[] = [];
  private server: Server | null = null;
  readonly sent: string[] = [];

  private constructor(readonly chain: Blockchain) {
    const genesis = createHash('sha256').update('walletd ton localnet genesis').digest('hex');
    this.blocks.push({ seqno: 1, rootHash: genesis, items: [] });
  }

  /** Paths served beside toncenter's (the playground's `walletd_fund`), given the JSON body's `params`. */
  private extra: Record<string, (params: unknown[]) => Promise<unknown>> = {};

  static async start(
    options: { port?: number; extra?: Record<string, (params: unknown[]) => Promise<unknown>> } = {},
  ): Promise<TonSandboxNode> {
    const { Blockchain } = require('@ton/sandbox') as typeof import('@ton/sandbox');
    const node = new TonSandboxNode(await Blockchain.create());
    node.extra = options.extra ?? {};
    node.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        node
          .answer(req.method ?? 'GET', new URL(req.url ?? '/', 'http://x'), body)
          .then((result) => {
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ ok: true, result }));
          })
          .catch((e: Error & { code?: number }) => {
            res.writeHead(e.code ?? 500, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ ok: false, error: e.message, code: e.code ?? 500 }));
          });
      });
    });
    await new Promise<void>((r) => node.server?.listen(options.port ?? 0, '127.0.0.1', () => r()));
    node.url = `http://127.0.0.1:${(node.server.address() as AddressInfo).port}/api/v2`;
    return node;
  }

  async close(): Promise<void> {
    if (this.server) await closeServer(this.server);
  }

  get seqno(): number {
    return (this.blocks[this.blocks.length - 1] as MadeBlock).seqno;
  }

  /** Keeps the transactions of a sandbox call for the next block (only basechain accounts). */
  record(result: SendMessageResult): SendMessageResult {
    for (const tx of result.transactions) {
      const dest = tx.inMessage?.info.dest;
      const workchain = dest && Address.isAddress(dest) ? dest.workChain : 0;
      if (workchain !== 0) continue;
      const account = new Address(0, Buffer.from(tx.address.toString(16).padStart(64, '0'), 'hex'));
      const inHash = tx.inMessage?.info.type === 'external-in' ? beginCell().store(storeMessage(tx.inMessage)).endCell().hash() : undefined;
      this.pending.push({
        account,
        tx,
        boc: tx.raw.toBoc().toString('base64'),
        hash: tx.raw.hash().toString('hex'),
        ...(inHash ? { inHash } : {}),
      });
    }
    return result;
  }

  /** Seals what was recorded into the next masterchain block; returns its seqno. */
  mine(): number {
    const parent = this.blocks[this.blocks.length - 1] as MadeBlock;
    const seqno = parent.seqno + 1;
    const rootHash = createHash('sha256')
      .update(`${seqno}|${parent.rootHash}|${this.pending.map((i) => i.hash).join(',')}`)
      .digest('hex');
    this.blocks.push({ seqno, rootHash, items: this.pending });
    this.pending = [];
    return seqno;
  }

  private block(seqno: number): MadeBlock {
    const b = this.blocks.find((x) => x.seqno === seqno);
    if (!b) throw Object.assign(new Error(`block ${seqno} not found`), { code: 404 });
    return b;
  }

  private item(i: Item) {
    return {
      '@type': 'raw.transaction',
      address: { '@type': 'accountAddress', account_address: i.account.toString({ bounceable: true, urlSafe: true }) },
      utime: i.tx.now,
      data: i.boc,
      transaction_id: { '@type': 'internal.transactionId', lt: i.tx.lt.toString(), hash: b64(i.hash) },
      fee: i.tx.totalFees.coins.toString(),
    };
  }

  private async answer(method: string, url: URL, body: string): Promise<unknown> {
    const q = url.searchParams;
    const name = url.pathname.replace(/^.*\//, '');
    switch (name) {
      case 'getMasterchainInfo':
        return { last: { workchain: -1, shard: MASTER_SHARD, seqno: this.seqno, root_hash: b64(this.block(this.seqno).rootHash) } };
      case 'shards':
        return { shards: [{ workchain: 0, shard: MASTER_SHARD, seqno: this.block(Number(q.get('seqno'))).seqno }] };
      case 'getBlockHeader': {
        const b = this.block(Number(q.get('seqno')));
        const prev = this.blocks.find((x) => x.seqno === b.seqno - 1);
        return {
          id: { seqno: b.seqno, root_hash: b64(b.rootHash) },
          prev_blocks: prev ? [{ seqno: prev.seqno, root_hash: b64(prev.rootHash) }] : [],
        };
      }
      case 'getBlockTransactionsExt': {
        const b = this.block(Number(q.get('seqno')));
        return { transactions: b.items.map((i) => this.item(i)), incomplete: false };
      }
      case 'getTransactions': {
        const address = Address.parse(q.get('address') ?? '');
        const all = this.blocks
          .flatMap((b) => b.items)
          .filter((i) => i.account.equals(address))
          .reverse();
        // toncenter's paging: from the transaction named by lt + hash (inclusive), going back.
        const lt = q.get('lt');
        const start = lt === null ? 0 : all.findIndex((i) => i.tx.lt.toString() === lt && b64(i.hash) === q.get('hash'));
        if (start < 0) throw Object.assign(new Error('transaction not found'), { code: 404 });
        return all.slice(start, start + Number(q.get('limit') ?? 10)).map((i) => this.item(i));
      }
      case 'getAddressInformation': {
        const contract = await this.chain.getContract(Address.parse(q.get('address') ?? ''));
        const type = contract.accountState?.type;
        return {
          balance: contract.balance.toString(),
          state: type === 'active' ? 'active' : type === 'frozen' ? 'frozen' : 'uninitialized',
        };
      }
      case 'runGetMethod': {
        const r = JSON.parse(body) as { address: string; method: string; stack: [string, string][] };
        const stack: TupleItem[] = r.stack.map(([type, value]) => {
          if (type !== 'tvm.Slice') throw Object.assign(new Error(`stack entry ${type} not served`), { code: 400 });
          return { type: 'slice', cell: Cell.fromBase64(value) };
        });
        const res = await this.chain
          .runGetMethod(Address.parse(r.address), r.method, stack)
          .catch((e: Error) => ({ exitCode: 11, stack: [], error: e }));
        return {
          exit_code: res.exitCode,
          stack: res.stack.map((item) => {
            if (item.type === 'int')
              return ['num', `${item.value < 0n ? '-' : ''}0x${(item.value < 0n ? -item.value : item.value).toString(16)}`];
            if (item.type === 'cell' || item.type === 'slice' || item.type === 'builder')
              return ['cell', { bytes: item.cell.toBoc().toString('base64') }];
            return ['null', null];
          }),
        };
      }
      case 'sendBoc': {
        const { boc } = JSON.parse(body) as { boc: string };
        const cell = Cell.fromBase64(boc);
        const message = loadMessage(cell.beginParse());
        if (message.info.type !== 'external-in') throw Object.assign(new Error('not an external message'), { code: 400 });
        this.sent.push(boc);
        // The same bytes again before the next block: a node holds them once (no second execution).
        if (
          this.pending.some(
            (i) => i.tx.inMessage && i.tx.inMessage.info.type === 'external-in' && cell.hash().equals(i.inHash ?? Buffer.alloc(0)),
          )
        )
          return { '@type': 'ok' };
        try {
          this.record(await this.chain.sendMessage(message));
        } catch (e) {
          // The emulator refuses an external message the wallet does not accept (bad signature, stale seqno, expired).
          throw Object.assign(new Error(`LITE_SERVER_UNKNOWN: cannot apply external message to current state : ${(e as Error).message}`), {
            code: 500,
          });
        }
        return { '@type': 'ok' };
      }
      default: {
        const extra = this.extra[name];
        if (extra && method === 'POST') return extra((JSON.parse(body || '{}') as { params?: unknown[] }).params ?? []);
        throw Object.assign(new Error(`${method} ${name} is not served by the adapter`), { code: 404 });
      }
    }
  }
}
