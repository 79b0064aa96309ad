import { createServer } from 'node:http';
import { NodeCallError, createJsonRpcClient } from '@walletd/core';
import { createEvmReader } from '@walletd/plugin-evm';
import { createUtxoReader } from '@walletd/plugin-utxo';
import { Wallet } from 'ethers';
import {
  type Anvil,
  type RegtestNode,
  type RpcCall,
  type RpcProxy,
  describeWithLitecoind,
  startAnvil,
  startLitecoind,
  startRpcProxy,
} from '@walletd/test-harness';

/** anvil's first prefunded account (public, well-known). */
const FUNDER_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

const nodeError = async (p: Promise<unknown>): Promise<NodeCallError> => {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(NodeCallError);
  expect((e as NodeCallError).code).toBe('node_error');
  return e as NodeCallError;
};

/** A proxy that drops the first call of each method in `drop` (the connection closes unanswered). */
const dropFirst = (target: string, drop: string[]) => {
  const pending = new Set(drop);
  return startRpcProxy(target, {
    before: (c: RpcCall) => {
      if (!pending.delete(c.method)) return undefined;
      return 'drop';
    },
  });
};
const count = (proxy: RpcProxy, method: string) => proxy.calls.filter((m) => m === method).length;

describe('the shared JSON-RPC client on anvil (2.0)', () => {
  let anvil: Anvil;
  beforeAll(async () => {
    anvil = await startAnvil();
  });
  afterAll(async () => {
    await anvil.stop();
  });

  it('retries a read after a dropped connection, never a broadcast', async () => {
    const proxy = await dropFirst(anvil.url, ['eth_blockNumber', 'eth_sendRawTransaction']);
    try {
      const reader = createEvmReader({ rpcUrl: proxy.url, retries: 2 });
      expect(await reader.head()).toBe(BigInt(await anvil.rpc<string>('eth_blockNumber', [])));
      expect(count(proxy, 'eth_blockNumber')).toBe(2);

      const wallet = new Wallet(FUNDER_KEY);
      const nonce = Number(BigInt(await anvil.rpc<string>('eth_getTransactionCount', [wallet.address, 'latest'])));
      const raw = await wallet.signTransaction({
        type: 2,
        chainId: BigInt(await anvil.rpc<string>('eth_chainId', [])),
        nonce,
        to: '0x000000000000000000000000000000000000dEaD',
        value: 1n,
        gasLimit: 21_000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 10n ** 9n,
      });
      const e = await nodeError(reader.call('eth_sendRawTransaction', [raw]));
      expect(e.node).toMatchObject({ method: 'eth_sendRawTransaction', kind: 'unreachable', attempts: 1 });
      expect(count(proxy, 'eth_sendRawTransaction')).toBe(1);
      // The dropped send never reached the node; the caller decides to send the same bytes again.
      expect(Number(BigInt(await anvil.rpc<string>('eth_getTransactionCount', [wallet.address, 'latest'])))).toBe(nonce);
      await reader.call('eth_sendRawTransaction', [raw]);
      expect(count(proxy, 'eth_sendRawTransaction')).toBe(2);
    } finally {
      await proxy.close();
    }
  });

  it('splices raw blocks unparsed and maps node answers to node_error with their kind', async () => {
    const reader = createEvmReader({ rpcUrl: anvil.url });
    const raw = JSON.parse(new TextDecoder().decode((await reader.fetchBlock(0n)) as Uint8Array));
    expect(raw.block.result.number).toBe('0x0');
    expect(Array.isArray(raw.receipts.result)).toBe(true);

    const client = createJsonRpcClient({ url: anvil.url, dialect: '2.0' });
    const unknown = await nodeError(client.call('walletd_noSuchMethod', []));
    expect(unknown.node).toMatchObject({ kind: 'rpc', method: 'walletd_noSuchMethod' });
    expect(typeof unknown.node.rpcCode).toBe('number');
    await nodeError(client.callRaw('walletd_noSuchMethod', []));

    // A node that does not answer in time: one deadline per attempt, then node_error / timeout.
    let release: () => void = () => undefined;
    const slow = await startRpcProxy(anvil.url, {
      before: () =>
        new Promise<undefined>((r) => {
          release = () => r(undefined);
        }),
    });
    try {
      const e = await nodeError(createJsonRpcClient({ url: slow.url, dialect: '2.0', timeoutMs: 200, retries: 0 }).call('eth_chainId', []));
      expect(e.node).toMatchObject({ kind: 'timeout', attempts: 1 });
    } finally {
      release();
      await slow.close();
    }
  });
});

describeWithLitecoind('the shared JSON-RPC client on litecoind regtest (1.0, basic auth)', () => {
  let node: RegtestNode;
  beforeAll(async () => {
    node = await startLitecoind();
  }, 60_000);
  afterAll(async () => {
    await node.stop();
  });

  it('sends the credentials from the URL and reads amounts without a float', async () => {
    const client = createJsonRpcClient({ url: node.url, dialect: '1.0' });
    const { result, text } = await client.call<string>('getbalance', []);
    // A decimal string with the node's 8 places, exactly as the body says.
    expect(typeof result).toBe('string');
    expect(result).toMatch(/^[0-9]+\.[0-9]{8}$/);
    expect(text).toContain(result);
    const height = (await client.call<number>('getblockcount', [])).result;
    expect(Number.isSafeInteger(height)).toBe(true);

    const wrong = new URL(node.url);
    wrong.password = 'not-the-password';
    const e = await nodeError(createJsonRpcClient({ url: wrong.toString(), dialect: '1.0' }).call('getblockcount', []));
    expect(e.node).toMatchObject({ kind: 'http', status: 401 });
    expect(e.message).not.toContain('not-the-password');
    const missing = await nodeError(client.call('getblock', ['00'.repeat(32)]));
    expect(missing.node).toMatchObject({ kind: 'rpc', rpcCode: -5 });
  });

  it('retries a read after a dropped connection, never sendrawtransaction', async () => {
    const url = new URL(node.url);
    const proxy = await dropFirst(`http://${url.host}`, ['getblockcount', 'sendrawtransaction']);
    try {
      const through = new URL(proxy.url);
      through.username = url.username;
      through.password = url.password;
      const reader = createUtxoReader({ rpcUrl: through.toString(), retries: 2, scriptOf: () => '00' });
      expect(await reader.head()).toBe(BigInt(await node.rpc<number>('getblockcount')));
      expect(count(proxy, 'getblockcount')).toBe(2);
      const e = await nodeError(reader.call('sendrawtransaction', ['00']));
      expect(e.node).toMatchObject({ kind: 'unreachable', attempts: 1 });
      expect(count(proxy, 'sendrawtransaction')).toBe(1);
    } finally {
      await proxy.close();
    }
  });
});

describe('the shared JSON-RPC client and an error that carries data', () => {
  it("keeps the node's `data` in the message (Substrate names the reason there: 1010 Invalid Transaction)", async () => {
    // The answer a Substrate node gives author_submitExtrinsic for a forged signature.
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end('{"jsonrpc":"2.0","id":1,"error":{"code":1010,"message":"Invalid Transaction","data":"Transaction has a bad signature"}}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { port } = server.address() as { port: number };
      const client = createJsonRpcClient({ url: `http://127.0.0.1:${port}`, dialect: '2.0' });
      const e = await nodeError(client.call('author_submitExtrinsic', ['0x00'], { idempotent: false }));
      expect(e.node).toMatchObject({ kind: 'rpc', rpcCode: 1010 });
      expect(e.message).toBe('author_submitExtrinsic: Invalid Transaction: Transaction has a bad signature');
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('the shared JSON-RPC client batches reads (the follower checks token balances in one request per block)', () => {
  it('answers a batch in the order asked on anvil, and throws the node error of any call in it', async () => {
    const anvil = await startAnvil();
    try {
      const rpc = createJsonRpcClient({ url: anvil.url, dialect: '2.0' });
      const [chainId, head] = await rpc.batch<string>([
        { method: 'eth_chainId', params: [] },
        { method: 'eth_blockNumber', params: [] },
      ]);
      expect([chainId, head]).toEqual([await anvil.rpc('eth_chainId'), await anvil.rpc('eth_blockNumber')]);
      const e = await nodeError(
        rpc.batch([
          { method: 'eth_chainId', params: [] },
          { method: 'no_such_method', params: [] },
        ]),
      );
      expect(e.node).toMatchObject({ method: 'no_such_method', kind: 'rpc' });
    } finally {
      await anvil.stop();
    }
  });

  it('asks call by call a node that refuses batches', async () => {
    const bodies: unknown[] = [];
    const server = createServer((req, res) => {
      let text = '';
      req.on('data', (d) => {
        text += d;
      });
      req.on('end', () => {
        const body = JSON.parse(text);
        bodies.push(body);
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify(
            Array.isArray(body)
              ? { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch requests are not supported' } }
              : { jsonrpc: '2.0', id: body.id, result: `0x${body.params[0].toString(16)}` },
          ),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { port } = server.address() as { port: number };
      const rpc = createJsonRpcClient({ url: `http://127.0.0.1:${port}`, dialect: '2.0' });
      expect(await rpc.batch<string>([1, 2, 3].map((n) => ({ method: 'echo', params: [n] })))).toEqual(['0x1', '0x2', '0x3']);
      expect(bodies.map((b) => Array.isArray(b))).toEqual([true, false, false, false]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
