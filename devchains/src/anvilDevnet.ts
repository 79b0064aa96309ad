import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BaseError,
  formatIdentity,
  identityAlive,
  type Logger,
  parseIdentity,
  processAlive,
  processCommandLine,
  processStartTime,
  selfIdentity,
  withFileLock,
} from '@walletd/core';
import { Interface } from 'ethers';
import { rpc, waitMined } from './devnetRpc';
import { discardState, keepFirstGenesis, restoredChainProblem } from './devnetState';
import token from './testToken.json';

/**
 * The local EVM chain `npm start` runs when no chain is configured: anvil from npm as
 * ethereum/devnet, its state kept under `<dataDir>/anvil` (restored after restarts, even after a
 * kill -9: it is dumped every second; a restore whose blocks do not link up is discarded, see
 * devnetState.ts), plus a devnet USDC (6 decimals, public mint).
 */
export const DEVNET_FUNDER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

export interface DevnetInfo {
  rpcUrl: string;
  usdc: string;
  /** Block 0's hash when the devnet was created: a reload must reproduce it. */
  genesisHash?: string;
}

export interface Devnet extends DevnetInfo {
  /** Stops anvil, or leaves it to another walletd process still using it: 'kept' then. */
  stop(): Promise<'stopped' | 'kept'>;
}

export const tokenInterface = new Interface(token.abi);

function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  try {
    return join(require.resolve(`${pkg}/package.json`), '..', 'bin', 'anvil');
  } catch {
    throw new BaseError(
      'setup_failed',
      `anvil for ${process.platform}-${arch} is not installed (${pkg}); configure chains[] or set WALLETD_DEVNET=0`,
    );
  }
}

export const devnetInfoFile = (dataDir: string) => join(dataDir, 'anvil', 'devnet.json');

export function readDevnetInfo(dataDir: string): DevnetInfo {
  const file = devnetInfoFile(dataDir);
  if (!existsSync(file))
    throw new BaseError('devchain_failed', `no devnet found in ${dataDir}: start walletd (npm start) without chains configured first`);
  return JSON.parse(readFileSync(file, 'utf8')) as DevnetInfo;
}

export interface StartDevnetOptions {
  dataDir: string;
  port: number;
  logger: Logger;
}

/**
 * Starts the devnet, or joins the one another walletd process runs from the same data directory
 * (whatever port this process was given: `devnet.json` has the live one). Ownership follows the
 * embedded PostgreSQL's model (core/src/db/embeddedPostgres.ts): decisions are taken under
 * `anvil/devnet.lock`; `anvil/owner.pid` names the process that stops anvil; a live anvil whose
 * owner died is adopted, never killed; each process using it leaves `anvil/user-<pid>`, and the
 * owner hands over to a live user on exit instead of stopping it. anvil runs in its own process
 * group, so a Ctrl-C aimed at the owner's terminal does not kill it under a joined process.
 */
export async function startDevnet(options: StartDevnetOptions): Promise<Devnet> {
  const dir = join(options.dataDir, 'anvil');
  mkdirSync(dir, { recursive: true });
  const files = devnetFiles(dir);
  const lock = { what: `the devnet in ${dir}` };
  const { info, anvilPid } = await withFileLock(files.lock, lock, async () => {
    const found = await startOrJoin(options, files);
    // Registered before the lock is released, so an owner stopping next sees this process.
    writeFileSync(files.user(process.pid), `${formatIdentity(selfIdentity())}\n`);
    return found;
  });
  return {
    ...info,
    stop: () => withFileLock(files.lock, lock, () => stopIfOwner(files, anvilPid, options.logger)),
  };
}

interface DevnetFiles {
  lock: string;
  anvilPid: string;
  owner: string;
  state: string;
  dir: string;
  user(pid: number): string;
}

const devnetFiles = (dir: string): DevnetFiles => ({
  dir,
  lock: join(dir, 'devnet.lock'),
  anvilPid: join(dir, 'anvil.pid'),
  owner: join(dir, 'owner.pid'),
  state: join(dir, 'state.json'),
  user: (pid) => join(dir, `user-${pid}`),
});

const readIdentity = (file: string) => (existsSync(file) ? parseIdentity(readFileSync(file, 'utf8')) : null);
const writeIdentity = (file: string, pid: number) => writeFileSync(file, `${formatIdentity({ pid, startedAt: processStartTime(pid) })}\n`);

/** The live anvil of this data directory, if any (a recycled pid that is not anvil is not it). */
function liveAnvil(files: DevnetFiles): number | null {
  const pid = existsSync(files.anvilPid) ? Number(readFileSync(files.anvilPid, 'utf8')) : 0;
  return pid > 0 && processAlive(pid) && processCommandLine(pid).includes('anvil') ? pid : null;
}

async function startOrJoin(options: StartDevnetOptions, files: DevnetFiles): Promise<{ info: DevnetInfo; anvilPid: number }> {
  const { logger } = options;
  const running = liveAnvil(files);
  if (running !== null && existsSync(devnetInfoFile(options.dataDir))) {
    const info = readDevnetInfo(options.dataDir);
    await rpc(info.rpcUrl, 'eth_chainId');
    const owner = readIdentity(files.owner);
    if (owner !== null && owner.pid !== process.pid && identityAlive(owner)) {
      logger.info(
        { rpcUrl: info.rpcUrl, anvilPid: running, ownerPid: owner.pid },
        `joining the devnet run by walletd process ${owner.pid}`,
      );
    } else {
      writeIdentity(files.owner, process.pid);
      logger.warn(
        { rpcUrl: info.rpcUrl, anvilPid: running },
        'adopting the running devnet anvil: the walletd process that started it is gone',
      );
    }
    return { info, anvilPid: running };
  }
  if (running !== null) await stopAnvil(running); // an anvil that never got as far as deploying the token

  let started = await launch(options, files);
  let info = await existingInfo(options.dataDir, started.rpcUrl);
  const problem = existsSync(files.state) ? await restoredChainProblem((m, p) => rpc(started.rpcUrl, m, p), info?.genesisHash) : null;
  if (problem !== null) {
    await stopAnvil(started.pid);
    const aside = discardState(files.state);
    rmSync(devnetInfoFile(options.dataDir), { force: true });
    logger.warn(
      { stateFile: files.state, keptAs: aside, problem },
      `the saved devnet chain did not restore consistently (${problem}); discarded it and starting a fresh devnet`,
    );
    started = await launch(options, files);
    info = undefined;
  }
  if (!info) info = await deployToken(started.rpcUrl);
  if (!info.genesisHash) {
    info.genesisHash = (await rpc<{ hash: string }>(started.rpcUrl, 'eth_getBlockByNumber', ['0x0', false])).hash;
  }
  writeFileSync(devnetInfoFile(options.dataDir), `${JSON.stringify(info, null, 2)}\n`);
  writeIdentity(files.owner, process.pid);
  logger.info({ rpcUrl: info.rpcUrl, usdc: info.usdc }, 'devnet (ethereum/devnet) running on anvil');
  return { info, anvilPid: started.pid };
}

async function launch(options: StartDevnetOptions, files: DevnetFiles): Promise<{ pid: number; rpcUrl: string }> {
  if (!keepFirstGenesis(files.state, options.logger)) {
    const aside = discardState(files.state);
    options.logger.warn({ keptAs: aside }, 'the saved devnet state is not readable; discarded it and starting a fresh devnet');
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
      files.state,
      '--state-interval',
      '1',
      '--silent',
    ],
    { stdio: 'ignore', detached: true },
  );
  child.unref();
  writeFileSync(files.anvilPid, String(child.pid));
  const until = Date.now() + 15_000;
  for (;;) {
    try {
      await rpc(rpcUrl, 'eth_chainId');
      return { pid: child.pid as number, rpcUrl };
    } catch (e) {
      if (child.exitCode !== null || Date.now() > until) {
        throw new BaseError('setup_failed', `devnet anvil did not start on port ${options.port}: ${(e as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** The saved devnet, if its token is on the chain anvil restored. */
async function existingInfo(dataDir: string, rpcUrl: string): Promise<DevnetInfo | undefined> {
  try {
    const info = readDevnetInfo(dataDir);
    if ((await rpc<string>(rpcUrl, 'eth_getCode', [info.usdc, 'latest'])) === '0x') return undefined;
    return { ...info, rpcUrl };
  } catch {
    return undefined;
  }
}

async function deployToken(rpcUrl: string): Promise<DevnetInfo> {
  const data = token.bytecode + tokenInterface.encodeDeploy(['Devnet USD Coin', 'USDC', 6]).slice(2);
  const receipt = await waitMined(rpcUrl, await rpc<string>(rpcUrl, 'eth_sendTransaction', [{ from: DEVNET_FUNDER, data }]));
  if (receipt.status !== '0x1' || !receipt.contractAddress) throw new BaseError('devchain_failed', 'could not deploy the devnet USDC');
  return { rpcUrl, usdc: receipt.contractAddress };
}

async function stopAnvil(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  for (let i = 0; i < 100 && processAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  if (processAlive(pid)) process.kill(pid, 'SIGKILL');
}

/** Under the lock: hand anvil to another live walletd process using it, or stop it. */
async function stopIfOwner(files: DevnetFiles, anvilPid: number, logger: Logger): Promise<'stopped' | 'kept'> {
  rmSync(files.user(process.pid), { force: true });
  if (readIdentity(files.owner)?.pid !== process.pid) return 'kept';
  for (const name of readdirSync(files.dir)) {
    if (!name.startsWith('user-')) continue;
    const user = readIdentity(join(files.dir, name));
    if (user !== null && identityAlive(user)) {
      writeIdentity(files.owner, user.pid);
      logger.info({ heirPid: user.pid }, 'leaving the devnet anvil running for another walletd process');
      return 'kept';
    }
    rmSync(join(files.dir, name), { force: true }); // left by a killed process
  }
  await stopAnvil(anvilPid);
  rmSync(files.owner, { force: true });
  return 'stopped';
}
