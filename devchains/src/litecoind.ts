import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UtxoNetwork } from '@walletd/plugin-utxo';
import { freePort } from './freePort';
import { BaseError } from '@walletd/core';

/**
 * A real Bitcoin Core–derived node for the UTXO plugin: Debian has no bitcoind or dogecoind, but
 * litecoind speaks the same JSON-RPC and transaction formats. Regtest, loopback only, a wallet
 * with 101 mined blocks (spendable coinbase), RBF on so transactions can be replaced.
 */
export interface RegtestNode {
  /** http://user:pass@127.0.0.1:port, as walletd's chains[].rpcUrl takes it. */
  url: string;
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Mines blocks to the node's own wallet (a fresh address each time, so no two blocks are alike); returns their hashes. */
  mine(blocks: number): Promise<string[]>;
  /** True when the chain began with this start (no datadir kept, or a new one). */
  fresh: boolean;
  stop(): Promise<void>;
}

export interface LitecoindOptions {
  /** A datadir kept across starts (a temporary one, removed at stop, when absent). */
  datadir?: string;
  /** Loopback RPC port (a free one when absent). */
  rpcPort?: number;
}

/**
 * `net` as litecoind regtest spells addresses (rltc1… for segwit, 0x3a for P2SH). The output
 * scripts of walletd's bitcoin and dogecoin regtest are the same; only the encoding differs, so an
 * address crosses over to the node by its script (`addressOfScript(asLitecoind(net), script)`).
 */
export function asLitecoind(net: UtxoNetwork): UtxoNetwork {
  return { ...net, params: { ...net.params, bech32: 'rltc', scriptHash: 0x3a } };
}

export const litecoindAvailable = (): boolean => spawnSync('litecoind', ['-version'], { stdio: 'ignore' }).status === 0;

export async function startLitecoind(options: LitecoindOptions = {}): Promise<RegtestNode> {
  const kept = options.datadir !== undefined;
  const fresh = !kept || !existsSync(join(options.datadir as string, 'regtest'));
  if (kept) mkdirSync(options.datadir as string, { recursive: true });
  const dir = options.datadir ?? mkdtempSync(join(tmpdir(), 'walletd-ltc-'));
  const [rpcPort, p2pPort] = [options.rpcPort ?? (await freePort()), await freePort()];
  const user = 'walletd';
  const password = 'regtest-only';
  const child: ChildProcess = spawn(
    'litecoind',
    [
      '-regtest',
      `-datadir=${dir}`,
      `-rpcport=${rpcPort}`,
      `-port=${p2pPort}`,
      '-rpcbind=127.0.0.1',
      '-rpcallowip=127.0.0.1',
      `-rpcuser=${user}`,
      `-rpcpassword=${password}`,
      '-listen=0',
      '-server=1',
      '-fallbackfee=0.0002',
      '-walletrbf=1',
      // Litecoin Core turns BIP-125 replacement off by default; bitcoind and dogecoind relay it.
      '-mempoolreplacement=1',
      '-txindex=1',
      '-printtoconsole=0',
    ],
    { stdio: 'ignore' },
  );
  const endpoint = `http://127.0.0.1:${rpcPort}/`;
  const auth = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  let id = 0;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: auth },
      body: JSON.stringify({ jsonrpc: '1.0', id: ++id, method, params }),
    });
    const body = (await res.json()) as { result?: T; error?: { code: number; message: string } | null };
    if (body.error) throw Object.assign(new Error(`${method}: ${body.error.message}`), { code: body.error.code });
    return body.result as T;
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await rpc('getblockchaininfo');
      break;
    } catch (e) {
      if (Date.now() > deadline || child.exitCode !== null) {
        child.kill('SIGKILL');
        // A kept datadir is locked by a litecoind still running on it (a walletd killed with -9).
        const held = kept ? ` (is another litecoind using ${dir}? its pid is in ${join(dir, 'regtest', 'litecoind.pid')})` : '';
        throw new BaseError('setup_failed', `litecoind did not start: ${(e as Error).message}${held}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  // A kept datadir has the wallet already: loaded, not created again (-18: no such wallet yet).
  await rpc('loadwallet', ['walletd-test']).catch(async (e: { code?: number }) => {
    if (e.code !== -18) throw e;
    await rpc('createwallet', ['walletd-test']);
  });
  const mine = async (blocks: number) => rpc<string[]>('generatetoaddress', [blocks, await rpc<string>('getnewaddress')]);
  const height = await rpc<number>('getblockcount');
  if (height < 101) await mine(101 - height);
  return {
    url: `http://${user}:${password}@127.0.0.1:${rpcPort}`,
    rpc,
    mine,
    fresh,
    stop: async () => {
      await rpc('stop').catch(() => undefined);
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
      if (!kept) rmSync(dir, { recursive: true, force: true });
    },
  };
}
