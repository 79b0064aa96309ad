import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, runWalletdAsync, spawnWalletd, type WalletdProcess } from '@walletd/test-harness';

/** One `walletd serve --roles <role>` process of the drill, with the ports it listens on. */
export interface DrillProcess {
  name: string;
  proc: WalletdProcess;
  pid: number;
  /** The API (api role), the console (console role), else the probes listener. */
  base: string;
  probes: string;
}

export interface DrillSettings {
  primaryUrl: string;
  replicaUrl: string;
  anvilUrl: string;
  usdc: string;
  leaseTtlMs: number;
  replicaMaxLagMs: number;
}

/**
 * The drill's walletd processes: each role in processes of its own, on one primary (and its
 * replica for the history reads), as deploy/compose.yaml runs them, every one with a probes
 * listener. Started in the order an operator would: migrate, then the rest.
 */
export class DrillProcesses {
  readonly all: DrillProcess[] = [];
  private readonly dir = mkdtempSync(join(tmpdir(), 'walletd-drill-'));
  private readonly config = join(this.dir, 'walletd.json');
  private readonly masterKey = randomBytes(32).toString('hex');

  constructor(private readonly s: DrillSettings) {
    chmodSync(this.dir, 0o711);
    writeFileSync(
      this.config,
      JSON.stringify({
        bootstrap: false,
        devnet: { enabled: false },
        // One client address (the drill) loads two API processes: the per-IP limit is not under test.
        rateLimit: { perIpPerMinute: 1_000_000, writesPerKeyPerMinute: 1_000 },
        webhooks: { allowCidrs: ['127.0.0.0/8'], pollIntervalMs: 200, timeoutMs: 10_000, leaseMs: 20_000 },
        indexer: { threads: 1, leaseTtlMs: s.leaseTtlMs },
        database: { replicaMaxLagMs: s.replicaMaxLagMs, poolMax: 8, readPoolMax: 4 },
        chains: [
          {
            chain: 'ethereum',
            network: 'devnet',
            rpcUrl: s.anvilUrl,
            startBlock: 0,
            confirmations: 2,
            pollIntervalMs: 200,
            tokens: [{ contract: s.usdc, symbol: 'USDC', decimals: 6 }],
          },
        ],
      }),
    );
  }

  private env(): Record<string, string> {
    return {
      DATABASE_URL: this.s.primaryUrl,
      DATABASE_REPLICA_URL: this.s.replicaUrl,
      WALLETD_MASTER_KEY: this.masterKey,
      WALLETD_DATA_DIR: this.dir,
      HOST: '127.0.0.1',
    };
  }

  async migrate(): Promise<void> {
    const r = await runWalletdAsync(['migrate', '--config', this.config], this.env());
    if (r.status !== 0) throw new Error(`walletd migrate failed:\n${r.stdout}${r.stderr}`);
  }

  /** Starts `serve --roles <role>` and resolves once `ready` shows in its output. */
  async start(name: string, role: 'api' | 'dispatcher' | 'indexer' | 'console', ready: RegExp): Promise<DrillProcess> {
    const [port, probesPort] = [await freePort(), await freePort()];
    const proc = spawnWalletd(['serve', '--roles', role, '--config', this.config], {
      ...this.env(),
      PORT: String(port),
      WALLETD_CONSOLE_PORT: String(port),
      WALLETD_PROBES_PORT: String(probesPort),
    });
    const p: DrillProcess = {
      name,
      proc,
      pid: proc.child.pid as number,
      base: `http://127.0.0.1:${role === 'api' || role === 'console' ? port : probesPort}`,
      probes: `http://127.0.0.1:${probesPort}`,
    };
    this.all.push(p);
    await proc.waitFor(ready, 90_000);
    return p;
  }

  /** SIGTERM to every process still running; their exit codes, by name. */
  async stopAll(): Promise<Record<string, number | null>> {
    const live = this.all.filter((p) => p.proc.child.exitCode === null && p.proc.child.signalCode === null);
    for (const p of live) p.proc.child.kill('SIGTERM');
    const codes = await Promise.all(live.map((p) => p.proc.exited));
    return Object.fromEntries(live.map((p, i) => [p.name, codes[i] as number | null]));
  }

  /** SIGKILL to whatever still runs, its config and data folder removed. */
  async killAll(): Promise<void> {
    const live = this.all.filter((p) => p.proc.child.exitCode === null && p.proc.child.signalCode === null);
    for (const p of live) p.proc.child.kill('SIGKILL');
    await Promise.all(live.map((p) => p.proc.exited));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
