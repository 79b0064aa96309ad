import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TokenDefinition } from '@walletd/core';
import { nativeAsset } from '@walletd/test-harness';
import { createEvmPlugin, detect } from '@walletd/plugin-evm';
// The built package: worker threads run compiled JavaScript.
import { SharedAddressSet, createDetectPool } from '@walletd/indexer';

const fixture = JSON.parse(
  readFileSync(
    join(__dirname, '..', '..', '..', 'test', 'fixtures', 'ethereum', 'eth-mainnet-erc20-transfer-receipt-cd718a69.json'),
    'utf8',
  ),
);

describe('detect pool', () => {
  it('runs the plugin detector in worker threads with the shared watched set, same result as in-process', async () => {
    const tx = fixture.data.eth_getTransactionByHash.result;
    const receipt = fixture.data.eth_getTransactionReceipt.result;
    const json = JSON.stringify({
      block: { number: tx.blockNumber, hash: tx.blockHash, parentHash: `0x${'11'.repeat(32)}`, transactions: [tx] },
      receipts: [receipt],
    });
    const usdt: TokenDefinition = {
      key: 'ethereum:mainnet:0xdac17f958d2ee523a2206206994597c13d831ec7',
      symbol: 'USDT',
      decimals: 6,
      contractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
      matchKey: '0xdac17f958d2ee523a2206206994597c13d831ec7',
    };
    const watched = new SharedAddressSet();
    watched.add(fixture.expected.usdtCredit.to.toLowerCase());
    const native = nativeAsset('ethereum', 'mainnet');
    // Every block to the threads, however small (the default detects small ones on this thread).
    const pool = createDetectPool(2, { inlineBelowBytes: 0 });
    try {
      const results = await Promise.all(
        [1, 2, 3].map(() =>
          pool.detect({
            detectModule: createEvmPlugin().detectModule,
            raw: new TextEncoder().encode(json),
            chain: 'ethereum',
            network: 'mainnet',
            native,
            tokens: [usdt],
            watched: watched.table,
          }),
        ),
      );
      const direct = detect(new TextEncoder().encode(json), {
        chain: 'ethereum',
        network: 'mainnet',
        native,
        tokens: new Map([[usdt.matchKey, usdt]]),
        watched: { has: (k) => k === fixture.expected.usdtCredit.to.toLowerCase() },
      });
      for (const r of results) expect(r).toEqual(direct);
      expect(direct.transfers).toHaveLength(1);
      expect(direct.transfers[0]?.amount).toBe(4361142255n);
    } finally {
      await pool.close();
    }
  });

  it('keeps each result and error with its own block while a thread holds the next one', async () => {
    const native = nativeAsset('ethereum', 'mainnet');
    const watched = new SharedAddressSet();
    const block = (n: number) =>
      new TextEncoder().encode(
        JSON.stringify({
          block: {
            number: `0x${n.toString(16)}`,
            hash: `0x${n.toString(16).padStart(64, '0')}`,
            parentHash: `0x${'11'.repeat(32)}`,
            transactions: [],
          },
          receipts: [],
        }),
      );
    // One thread: it holds the next task in its own queue while it runs one (PREFETCH_PER_THREAD).
    const pool = createDetectPool(1, { inlineBelowBytes: 0 });
    try {
      const raws = [1, 2, 3, 4, 5, 6].map((n) => (n === 3 ? new TextEncoder().encode('{"block": ') : block(n)));
      const settled = await Promise.allSettled(
        raws.map((raw) =>
          pool.detect({
            detectModule: createEvmPlugin().detectModule,
            raw,
            chain: 'ethereum',
            network: 'mainnet',
            native,
            tokens: [],
            watched: watched.table,
          }),
        ),
      );
      expect(settled.map((s) => (s.status === 'fulfilled' ? s.value.block.number : 'rejected'))).toEqual([1n, 2n, 'rejected', 4n, 5n, 6n]);
      expect(String((settled[2] as PromiseRejectedResult).reason)).toMatch(/JSON/);
    } finally {
      await pool.close();
    }
  });

  it('detects a block under inlineBelowBytes on the calling thread, a bigger one in a worker, with the same errors', async () => {
    // A detector that says which thread ran it (the block number is the thread's id; 0 = main).
    const dir = mkdtempSync(join(tmpdir(), 'inline-detect-'));
    const detectModule = join(dir, 'whichThread.js');
    writeFileSync(
      detectModule,
      `const { threadId } = require('node:worker_threads');
       exports.detect = (raw) => {
         if (raw[0] !== 0x7b) { const e = new Error('unusable block'); e.name = 'BaseError'; e.code = 'node_error'; e.details = { reason: 'traces_unavailable' }; throw e; }
         return { block: { number: BigInt(threadId), hash: '0x', parentHash: '0x' }, transfers: [] };
       };`,
    );
    const watched = new SharedAddressSet();
    const task = (bytes: number, first = '{') => ({
      detectModule,
      raw: new TextEncoder().encode(first.padEnd(bytes, ' ')),
      chain: 'ethereum' as const,
      network: 'mainnet',
      native: nativeAsset('ethereum', 'mainnet'),
      tokens: [],
      watched: watched.table,
    });
    const pool = createDetectPool(1, { inlineBelowBytes: 1024 });
    try {
      expect((await pool.detect(task(1023))).block.number).toBe(0n);
      expect((await pool.detect(task(1024))).block.number).toBeGreaterThan(0n);
      // A failed read keeps its code and reason on either path.
      for (const size of [100, 4096])
        await expect(pool.detect(task(size, 'x'))).rejects.toMatchObject({ code: 'node_error', details: { reason: 'traces_unavailable' } });
    } finally {
      await pool.close();
    }
  });
});
