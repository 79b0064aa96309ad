import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTestDatabase,
  freePort,
  litecoindAvailable,
  spawnWalletd,
  type TestDatabase,
  type WalletdProcess,
} from '@walletd/test-harness';

/** Whether something accepts a TCP connection on the loopback port. */
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect({ port, host: '127.0.0.1' });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

/**
 * A client mid-request on the loopback port (headers sent, the body still coming), as a reader
 * that had a call in flight when the service was told to stop: Node's server.close() waits for it
 * and, once closing, no longer times it out.
 */
const stalledRequest = (port: number) =>
  new Promise<void>((resolve, reject) => {
    const s = connect({ port, host: '127.0.0.1' });
    s.on('error', () => undefined); // reset at stop: what the fix does
    s.once('connect', () => {
      s.write(`POST / HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"jsonrpc"`);
      resolve();
    });
    s.once('error', reject);
  });

/**
 * Every local chain at once (`WALLETD_DEVNETS=evm,solana,ton,polkadot,bitcoin,dogecoin`, the
 * docs/guide/devnet.md's six; bitcoin's and dogecoin's regtest nodes, side by side, only where litecoind is
 * installed) stops with the service: a signal
 * ends `walletd serve` with code 0 and no engine's port is left listening. With all five, the
 * in-process adapters' (TON's, Solana's) close waited for every open connection, and a request
 * in progress at the signal kept it waiting for ever: the process hung with TON and Solana still
 * listening and anvil still running.
 */
describe('walletd serve with every local chain stops each engine on a signal', () => {
  let t: TestDatabase;
  let proc: WalletdProcess | undefined;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => {
    if (proc && proc.child.exitCode === null) proc.child.kill('SIGKILL');
    await proc?.exited;
    await t?.drop();
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`exits with code 0 on ${signal} and leaves no engine listening`, async () => {
      const names = ['solana', 'ton', 'polkadot', ...(litecoindAvailable() ? ['bitcoin', 'dogecoin'] : [])];
      const ports: Record<string, number> = {};
      for (const n of names) ports[n] = await freePort();
      const evmPort = await freePort();
      const dir = mkdtempSync(join(tmpdir(), 'walletd-play-stop-'));
      const config = join(dir, 'walletd.json');
      writeFileSync(config, JSON.stringify({ bootstrap: false, devnet: { port: evmPort, ports } }));
      const apiPort = await freePort();
      proc = spawnWalletd(['serve', '--config', config], {
        DATABASE_URL: t.url,
        WALLETD_MASTER_KEY: 'ab'.repeat(32),
        WALLETD_DATA_DIR: join(dir, '.walletd'),
        WALLETD_DEVNETS: ['evm', ...names].join(','),
        PORT: String(apiPort),
        HOST: '127.0.0.1',
      });
      await proc.waitFor(/API listening/, 180_000);
      // Every chain followed (the indexer talking to each engine) before the signal.
      for (const chain of ['ethereum', 'solana', 'ton', 'polkadot', ...(names.includes('bitcoin') ? ['bitcoin', 'dogecoin'] : [])]) {
        await proc.waitFor(new RegExp(`"chain":"${chain}"[^\\n]*"msg":"following"`), 60_000);
      }
      const all = { api: apiPort, evm: evmPort, ...ports };
      for (const [name, port] of Object.entries(all)) expect([name, await listening(port)]).toEqual([name, true]);

      // A caller mid-request on each in-process adapter when the signal comes.
      await stalledRequest(ports.ton as number);
      await stalledRequest(ports.solana as number);
      proc.child.kill(signal);
      const code = await proc.exited;
      const log = proc
        .stderr()
        .split('\n')
        .filter((l) => !l.includes('request completed') && !l.includes('"indexing"'));
      expect([code, log.slice(-15).join('\n')]).toEqual([0, expect.stringContaining('"msg":"stopped"')]);
      const left: string[] = [];
      for (const [name, port] of Object.entries(all)) if (await listening(port)) left.push(name);
      expect(left).toEqual([]);
      proc = undefined;
    }, 400_000);
  }
});
