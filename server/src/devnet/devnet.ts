import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ChainSettings, type Logger, processAlive, processCommandLine } from '@walletd/core';
import { Interface } from 'ethers';
import token from './testToken.json';

/**
 * The local EVM chain `npm start` runs when no chain is configured: anvil from npm as
 * ethereum/devnet, its state kept under `<dataDir>/anvil` (restored after restarts, even after a
 * kill -9: it is dumped every second), plus a devnet USDC (6 decimals, public mint).
 */
export const DEVNET_FUNDER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

export interface DevnetInfo {
  rpcUrl: string;
  usdc: string;
}

export interface Devnet extends DevnetInfo {
  chain: ChainSettings;
  stop(): Promise<void>;
}

const tokenInterface = new Interface(token.abi);

function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  try {
    return join(require.resolve(`${pkg}/package.json`), '..', 'bin', 'anvil');
  } catch {
    throw new Error(`anvil for ${process.platform}-${arch} is not installed (${pkg}); configure chains[] or set WALLETD_DEVNET=0`);
  }
}

/**
 * undici's "fetch failed" hides why; the cause (connection refused, DNS, reset) and the node's
 * URL are what someone running `walletd dev fund` needs to fix it.
 */
export function describeFetchError(url: string, e: unknown): string {
  const err = e as Error & { cause?: Error & { code?: string; errors?: (Error & { code?: string })[] } };
  // Node reports a refused dual-stack connect as an AggregateError without a message of its own.
  const inner = err.cause?.errors?.[0] ?? err.cause;
  const why = inner
    ? `${inner.message || inner.code || String(inner)}${inner.code && !inner.message?.includes(inner.code) ? ` (${inner.code})` : ''}`
    : err.message;
  return `the devnet node at ${url} did not answer: ${why}`;
}

export async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
  } catch (e) {
    throw new Error(describeFetchError(url, e), { cause: e });
  }
  if (!res.ok) throw new Error(`the devnet node at ${url} answered ${method} with HTTP ${res.status}`);
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export async function waitMined(url: string, hash: string): Promise<{ status: string; contractAddress: string | null }> {
  const until = Date.now() + 15_000;
  for (;;) {
    const r = await rpc<{ status: string; contractAddress: string | null } | null>(url, 'eth_getTransactionReceipt', [hash]);
    if (r) return r;
    if (Date.now() > until) throw new Error(`transaction ${hash} was not mined`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

/** How the indexer follows the devnet (also what `walletd indexer rescan` uses when chains[] is empty). */
export function devnetChain(info: DevnetInfo): ChainSettings {
  return {
    chain: 'ethereum',
    network: 'devnet',
    rpcUrl: info.rpcUrl,
    confirmations: 2,
    pollIntervalMs: 1000,
    startBlock: 0,
    tokens: [{ contract: info.usdc, symbol: 'USDC', decimals: 6 }],
  };
}

export const devnetInfoFile = (dataDir: string) => join(dataDir, 'anvil', 'devnet.json');

export function readDevnetInfo(dataDir: string): DevnetInfo {
  const file = devnetInfoFile(dataDir);
  if (!existsSync(file)) throw new Error(`no devnet found in ${dataDir}: start walletd (npm start) without chains configured first`);
  return JSON.parse(readFileSync(file, 'utf8')) as DevnetInfo;
}

export async function startDevnet(options: { dataDir: string; port: number; logger: Logger }): Promise<Devnet> {
  const dir = join(options.dataDir, 'anvil');
  mkdirSync(dir, { recursive: true });
  const pidFile = join(dir, 'anvil.pid');
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, 'utf8'));
    if (pid > 0 && processAlive(pid) && processCommandLine(pid).includes('anvil')) {
      options.logger.warn({ pid }, 'stopping an orphaned devnet anvil left by a killed walletd process');
      process.kill(pid, 'SIGTERM');
      for (let i = 0; i < 50 && processAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    }
  }
  const rpcUrl = `http://127.0.0.1:${options.port}`;
  const child: ChildProcess = spawn(
    anvilBinary(),
    // A block a second, like a chain: deposits confirm by themselves.
    [
      '--host',
      '127.0.0.1',
      '--port',
      String(options.port),
      '--block-time',
      '1',
      '--state',
      join(dir, 'state.json'),
      '--state-interval',
      '1',
      '--silent',
    ],
    { stdio: 'ignore' },
  );
  writeFileSync(pidFile, String(child.pid));
  const until = Date.now() + 15_000;
  for (;;) {
    try {
      await rpc(rpcUrl, 'eth_chainId');
      break;
    } catch (e) {
      if (child.exitCode !== null || Date.now() > until)
        throw new Error(`devnet anvil did not start on port ${options.port}: ${(e as Error).message}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  let info: DevnetInfo | undefined;
  try {
    info = readDevnetInfo(options.dataDir);
    if ((await rpc<string>(rpcUrl, 'eth_getCode', [info.usdc, 'latest'])) === '0x') info = undefined;
  } catch {
    info = undefined;
  }
  if (!info) {
    const data = token.bytecode + tokenInterface.encodeDeploy(['Devnet USD Coin', 'USDC', 6]).slice(2);
    const receipt = await waitMined(rpcUrl, await rpc<string>(rpcUrl, 'eth_sendTransaction', [{ from: DEVNET_FUNDER, data }]));
    if (receipt.status !== '0x1' || !receipt.contractAddress) throw new Error('could not deploy the devnet USDC');
    info = { rpcUrl, usdc: receipt.contractAddress };
    writeFileSync(devnetInfoFile(options.dataDir), `${JSON.stringify(info, null, 2)}\n`);
  }
  options.logger.info({ rpcUrl, usdc: info.usdc }, 'devnet (ethereum/devnet) running on anvil');
  return {
    ...info,
    chain: devnetChain(info),
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/** `walletd dev fund`: devnet ETH from the funder, or devnet USDC minted to the address. */
export async function fund(info: DevnetInfo, address: string, amount: bigint, token?: 'USDC'): Promise<string> {
  const tx = token
    ? { from: DEVNET_FUNDER, to: info.usdc, data: tokenInterface.encodeFunctionData('mint', [address, amount]) }
    : { from: DEVNET_FUNDER, to: address, value: `0x${amount.toString(16)}` };
  const hash = await rpc<string>(info.rpcUrl, 'eth_sendTransaction', [tx]);
  await waitMined(info.rpcUrl, hash);
  return hash;
}
