import { readFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { join } from 'node:path';
import staticPolkadot from '@polkadot/types-support/metadata/static-polkadot';
import { decodeFrame } from './frame';
import { createPolkadotReader } from './reader';

const assetHubMetadata: string = JSON.parse(
  readFileSync(join(__dirname, '..', '..', '..', 'test', 'fixtures', 'polkadot', 'asset-hub-polkadot-metadata-1001002.json'), 'utf8'),
).data.metadataHex;

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

/**
 * The reader against a loopback JSON-RPC stub standing for a node across a runtime upgrade: the
 * code set in block 10 runs from block 11 on, so block 10's events were emitted by the old
 * runtime (state_getRuntimeVersion at block 9) and block 11's by the new one (at block 10). The two
 * runtimes' metadata are real ones shipped in npm. And a node that lost a block's state (a pruned,
 * non-archive node answers `state_getStorage` with null).
 */
describe('Polkadot reader', () => {
  let server: Server;
  let url: string;
  const calls: { method: string; params: unknown[] }[] = [];
  const UPGRADE = 10;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        const call = JSON.parse(body) as { id: number; method: string; params: unknown[] };
        calls.push(call);
        const at = Number.parseInt(String(call.params[call.method === 'state_getStorage' ? 1 : 0] ?? hash(99)), 16);
        // The version in the state after block `at`: the new code from the upgrade block on.
        const newRuntime = at >= UPGRADE;
        const results: Record<string, unknown> = {
          chain_getBlockHash: hash(Number(call.params[0])),
          chain_getBlock: { block: { header: { number: `0x${at.toString(16)}`, parentHash: hash(at - 1) }, extrinsics: ['0x0400'] } },
          // Block 7's state is gone (pruned); the others have an empty event list.
          state_getStorage: at === 7 ? null : '0x00',
          state_getRuntimeVersion: newRuntime
            ? { specName: 'polkadot', specVersion: 1002005, transactionVersion: 26 }
            : { specName: 'statemint', specVersion: 1001002, transactionVersion: 14 },
          state_getMetadata: newRuntime ? staticPolkadot : assetHubMetadata,
        };
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: results[call.method] ?? null }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  it('frames each block with the runtime that executed it (its parent state), fetching each runtime metadata once', async () => {
    const reader = createPolkadotReader({ rpcUrl: url, retries: 0 });
    const spec = async (n: number) => decodeFrame((await reader.fetchBlock(BigInt(n))) as Uint8Array).header;
    expect((await spec(9)).specVersion).toBe(1001002);
    const upgrade = await spec(UPGRADE);
    expect([upgrade.specName, upgrade.specVersion]).toEqual(['statemint', 1001002]);
    const after = await spec(UPGRADE + 1);
    expect([after.specName, after.specVersion]).toEqual(['polkadot', 1002005]);
    expect(after.metadataKey).not.toBe(upgrade.metadataKey);
    expect((await spec(UPGRADE + 2)).specVersion).toBe(1002005);
    expect(calls.filter((c) => c.method === 'state_getMetadata').map((c) => c.params[0])).toEqual([hash(8), hash(UPGRADE)]);
  });

  it('refuses a block whose System.Events the node no longer has', async () => {
    const reader = createPolkadotReader({ rpcUrl: url, retries: 0 });
    await expect(reader.fetchBlock(7n)).rejects.toMatchObject({ code: 'node_error', message: /no System.Events for block 7/ });
  });
});
