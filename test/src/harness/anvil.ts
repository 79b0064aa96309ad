import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './walletdProcess';

/** The first account of anvil's default mnemonic: funded, unlocked. */
export const ANVIL_FUNDER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

export interface Anvil {
  url: string;
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Sends `wei` from the funder and returns the tx hash (anvil mines it in its own block). */
  send(to: string, wei: bigint): Promise<string>;
  mine(blocks: number): Promise<void>;
  /** Waits until the transaction is mined and returns its receipt. */
  receipt(hash: string): Promise<{ status: string; contractAddress: string | null; blockNumber: string }>;
  head(): Promise<bigint>;
  stop(): Promise<void>;
}

/** anvil from npm (@foundry-rs/anvil ships the binary in a platform package). */
function anvilBinary(): string {
  const pkg = `@foundry-rs/anvil-${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}`;
  const bin = join(require.resolve(`${pkg}/package.json`), '..', 'bin', 'anvil');
  if (!existsSync(bin)) throw new Error(`anvil binary missing at ${bin}; run npm install`);
  return bin;
}

/** `args`: extra anvil flags, e.g. ['--slots-in-an-epoch', '1'] so that `finalized` trails the head by 2. */
export async function startAnvil(args: string[] = []): Promise<Anvil> {
  const port = await freePort();
  const child: ChildProcess = spawn(anvilBinary(), ['--port', String(port), '--host', '127.0.0.1', '--silent', ...args], {
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  let id = 0;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    const body = (await res.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
  type Receipt = { status: string; contractAddress: string | null; blockNumber: string };
  const waitReceipt = async (hash: string): Promise<Receipt> => {
    const until = Date.now() + 15_000;
    for (;;) {
      const r = await rpc<Receipt | null>('eth_getTransactionReceipt', [hash]);
      if (r) return r;
      if (Date.now() > until) throw new Error(`transaction ${hash} was not mined`);
      await new Promise((res) => setTimeout(res, 20));
    }
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      await rpc('eth_chainId');
      break;
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`anvil did not start: ${(e as Error).message}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    rpc,
    send: async (to, wei) => {
      const hash = await rpc<string>('eth_sendTransaction', [{ from: ANVIL_FUNDER, to, value: `0x${wei.toString(16)}` }]);
      await waitReceipt(hash);
      return hash;
    },
    mine: async (blocks) => {
      await rpc('anvil_mine', [`0x${blocks.toString(16)}`]);
    },
    head: async () => BigInt(await rpc<string>('eth_blockNumber')),
    receipt: waitReceipt,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}
