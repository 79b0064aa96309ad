import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const SOFTHSM_MODULE = '/usr/lib/softhsm/libsofthsm2.so';
const available = () => existsSync(SOFTHSM_MODULE);

/** `describe` for suites that need a real SoftHSM2 token: skipped when it is missing, a failure under WALLETD_REQUIRE_NODES (CI). */
export function describeWithSoftHsm(name: string, fn: () => void): void {
  if (available()) {
    describe(name, fn);
    return;
  }
  if (process.env.WALLETD_REQUIRE_NODES) throw new Error('softhsm2 is required (WALLETD_REQUIRE_NODES is set): apt-get install softhsm2');
  process.stdout.write(`SKIPPED "${name}": softhsm2 is not installed (apt-get install softhsm2)\n`);
  describe.skip(name, fn);
}

export interface SoftHsmToken {
  /** The SoftHSM2 config naming its token folder: SOFTHSM2_CONF for whatever loads the module. */
  conf: string;
  label: string;
  slot: number;
  pin: string;
}

/** A softhsm2.conf whose tokens live in a fresh temp folder, never /var/lib/softhsm. */
export function softHsmConf(): string {
  const dir = mkdtempSync(join(tmpdir(), 'walletd-hsm-'));
  mkdirSync(join(dir, 'tokens'));
  writeFileSync(
    join(dir, 'softhsm2.conf'),
    `directories.tokendir = ${join(dir, 'tokens')}\nobjectstore.backend = file\nlog.level = ERROR\n`,
  );
  return join(dir, 'softhsm2.conf');
}

/**
 * A new token in `conf` (by default the run's, SOFTHSM2_CONF from the global setup: jest copies
 * process.env into each test file, so an in-process module only reads what was set before the
 * worker started).
 */
export function newSoftHsmToken(label: string, conf = process.env.SOFTHSM2_CONF ?? softHsmConf()): SoftHsmToken {
  const pin = '1234';
  const out = execFileSync('softhsm2-util', ['--init-token', '--free', '--label', label, '--pin', pin, '--so-pin', '5678'], {
    env: { ...process.env, SOFTHSM2_CONF: conf },
  }).toString();
  const slot = Number(/slot (\d+)/.exec(out)?.[1]);
  return { conf, label, slot, pin };
}

/** The environment variable the suites' `masterKey.pkcs11` reads the PIN from (`pinEnv`). */
export const TEST_HSM_PIN_ENV = 'WALLETD_TEST_HSM_PIN';

/**
 * `masterKey.pkcs11` for a SoftHSM2 token labelled `tokenLabel` (made by `newSoftHsmToken`, PIN
 * 1234): the settings under which walletd generates keys in the token and signs there (issue 45
 * §3). Sets the PIN's variable in this process, which the in-process app reads.
 */
export function softHsmKeySettings(tokenLabel: string, keyLabel = 'walletd-master') {
  process.env[TEST_HSM_PIN_ENV] = '1234';
  return { module: SOFTHSM_MODULE, tokenLabel, pinEnv: TEST_HSM_PIN_ENV, keyLabel };
}
