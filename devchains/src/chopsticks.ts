import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The chain's calls, storage and constants typed (api.tx.balances, api.query.assets, …).
import '@polkadot/api-augment';
import { ApiPromise, HttpProvider, Keyring } from '@polkadot/api';
import type { SubmittableExtrinsic } from '@polkadot/api/types';
import type { KeyringPair } from '@polkadot/keyring/types';
import { freePort } from './freePort';
import { BaseError } from '@walletd/core';

/**
 * A real Substrate runtime, offline: chopsticks (npm `@acala-network/chopsticks`) executes the
 * Rococo Asset Hub genesis runtime (`rococo_v2_2_asset_hub` from npm
 * `@substrate/connect-known-chains`: Balances, Assets, Utility, transaction payment) and serves
 * real JSON-RPC on loopback. Blocks are built on demand (`dev_newBlock`), the runtime validates
 * signatures, nonces and fees. What it cannot show: GRANDPA (its finalized head always equals the
 * best head) and a network (no gossip, no other authors).
 *
 * Accounts are funded through `import-storage` at start; transactions are signed with
 * polkadot.js (an independent implementation from the plugin's own signing).
 */
export interface Chopsticks {
  url: string;
  api: ApiPromise;
  /** `//Alice`: funded at start, the sender of the harness's transfers and the assets' admin. */
  alice: KeyringPair;
  keyring: Keyring;
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Signs with `signer` (immortal era, the next nonce, counting those signed but not yet in a block). */
  sign(tx: SubmittableExtrinsic<'promise'>, signer?: KeyringPair): Promise<string>;
  /** Builds one block holding `transactions` (and whatever the pool holds); returns its number. */
  newBlock(transactions?: string[]): Promise<bigint>;
  head(): Promise<bigint>;
  /** Creates asset `id` (admin Alice) with `minBalance` and mints `supply` to Alice. */
  createAsset(id: number, minBalance: bigint, supply: bigint): Promise<void>;
  /** `dev_setHead`: the best head moves back to `number` (later blocks are abandoned). */
  setHead(number: bigint): Promise<void>;
  /** Sets an account's free native balance directly in the runtime's storage. */
  fund(address: string, free: bigint): Promise<void>;
  stop(): Promise<void>;
}

const DEV_FUNDS = 10n ** 18n; // 1,000,000 ROC (12 decimals)

function chainSpec(): string {
  // The package's exports map names only its index; the spec module is plain CommonJS.
  const path = join(require.resolve('@substrate/connect-known-chains'), '..', 'specs', 'rococo_v2_2_asset_hub.js');
  return (require(path) as { chainSpec: string }).chainSpec;
}

/** The CLI script (the package's exports map hides its package.json and bin). */
function chopsticksBin(): string {
  for (const dir of require.resolve.paths('@acala-network/chopsticks') ?? []) {
    const bin = join(dir, '@acala-network', 'chopsticks', 'chopsticks.cjs');
    if (existsSync(bin)) return bin;
  }
  throw new BaseError('setup_failed', '@acala-network/chopsticks is not installed: run npm install');
}

/** The parent's environment less `PORT`, which chopsticks' server would take over its config's port (walletd serve has one). */
function chopsticksEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'error' };
  delete env.PORT;
  return env;
}

export interface ChopsticksOptions {
  endowed?: string[];
  /** Loopback port (a free one when absent). */
  port?: number;
  /** `Manual` (the default: blocks only through `newBlock`) or `Instant` (a block for each submitted transaction). */
  buildBlockMode?: 'Manual' | 'Instant';
}

export async function startChopsticks(options: ChopsticksOptions = {}): Promise<Chopsticks> {
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'walletd-chopsticks-'));
  writeFileSync(join(dir, 'spec.json'), chainSpec());
  const keyring = new Keyring({ type: 'sr25519', ss58Format: 42 });
  const alice = keyring.addFromUri('//Alice');
  const endowed = [alice.address, ...(options.endowed ?? [])];
  const config = {
    genesis: join(dir, 'spec.json'),
    port,
    host: '127.0.0.1',
    'build-block-mode': options.buildBlockMode ?? 'Manual',
    'import-storage': {
      System: { Account: endowed.map((a) => [[a], { providers: 1, data: { free: DEV_FUNDS.toString() } }]) },
    },
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  const bin = chopsticksBin();
  const child: ChildProcess = spawn(process.execPath, [bin, `--config=${join(dir, 'config.json')}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: chopsticksEnv(),
  });
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr = (stderr + String(d)).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  let id = 0;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    const body = (await res.json()) as { result?: T; error?: { message: string; data?: unknown } };
    if (body.error) throw new BaseError('devchain_failed', `${method}: ${body.error.message} ${body.error.data ?? ''}`);
    return body.result as T;
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      await rpc('chain_getHeader');
      break;
    } catch (e) {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new BaseError('setup_failed', `chopsticks did not start: ${(e as Error).message}\n${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  const api = await ApiPromise.create({ provider: new HttpProvider(url), noInitWarn: true, throwOnConnect: true });
  const nonces = new Map<string, number>();

  const head = async () => BigInt((await rpc<{ number: string }>('chain_getHeader')).number);
  const newBlock = async (transactions: string[] = []): Promise<bigint> => {
    await rpc('dev_newBlock', [transactions.length > 0 ? { transactions } : {}]);
    nonces.clear();
    return head();
  };
  const sign = async (tx: SubmittableExtrinsic<'promise'>, signer: KeyringPair = alice): Promise<string> => {
    let nonce = nonces.get(signer.address);
    if (nonce === undefined) nonce = (await api.rpc.system.accountNextIndex(signer.address)).toNumber();
    nonces.set(signer.address, nonce + 1);
    return (await tx.signAsync(signer, { nonce, era: 0 })).toHex();
  };

  return {
    url,
    api,
    alice,
    keyring,
    rpc,
    sign,
    newBlock,
    head,
    createAsset: async (assetId, minBalance, supply) => {
      await newBlock([
        await sign(api.tx.assets.create(assetId, alice.address, minBalance)),
        await sign(api.tx.assets.mint(assetId, alice.address, supply)),
      ]);
    },
    setHead: async (number) => {
      await rpc('dev_setHead', [Number(number)]);
      nonces.clear();
    },
    fund: async (address, free) => {
      await rpc('dev_setStorage', [{ System: { Account: [[[address], { providers: 1, data: { free: free.toString() } }]] } }]);
    },
    stop: async () => {
      await api.disconnect().catch(() => undefined);
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
