import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MasterKey } from './envelope';
import { initTokenMasterKey } from './pkcs11InitKey';
import { Pkcs11KeyBackend } from './pkcs11KeyBackend';

const MODULE = '/usr/lib/softhsm/libsofthsm2.so';
const have = existsSync(MODULE);
if (!have && process.env.WALLETD_REQUIRE_NODES === '1')
  throw new Error(`softhsm2 is required (WALLETD_REQUIRE_NODES=1) but ${MODULE} is missing`);
const maybe = have ? describe : describe.skip;

maybe('master key in a real SoftHSM2 token', () => {
  let dir: string;
  let slot: number;
  const base = { module: MODULE, pin: '1234', keyLabel: 'walletd-master' };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'walletd-hsm-'));
    mkdirSync(join(dir, 'tokens'));
    writeFileSync(join(dir, 'softhsm2.conf'), `directories.tokendir = ${join(dir, 'tokens')}\nobjectstore.backend = file\n`);
    // softhsm reads SOFTHSM2_CONF when the module initialises, so the tests never touch /var/lib/softhsm.
    process.env.SOFTHSM2_CONF = join(dir, 'softhsm2.conf');
    const out = execFileSync('softhsm2-util', [
      '--init-token',
      '--free',
      '--label',
      'walletd',
      '--pin',
      '1234',
      '--so-pin',
      '5678',
    ]).toString();
    slot = Number(/slot (\d+)/.exec(out)?.[1]);
    initTokenMasterKey({ ...base, slot });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('seals and opens envelopes with a key that stays in the token, one session reused', () => {
    const backend = new Pkcs11KeyBackend({ ...base, tokenLabel: 'walletd' });
    const mk = new MasterKey(backend);
    const env = mk.seal(Buffer.from('seed words'), 'wallet:1');
    expect(mk.open(env, 'wallet:1').toString()).toBe('seed words');
    expect(() => mk.open(env, 'wallet:2')).toThrow(/failed authentication/);
    // Same key, second process-like instance: same fingerprint, opens the first one's envelope.
    const again = new Pkcs11KeyBackend({ ...base, slot });
    expect(again.fingerprint()).toBe(backend.fingerprint());
    backend.close();
    expect(new MasterKey(again).open(env, 'wallet:1').toString()).toBe('seed words');
    again.close();
    expect(readdirSync(join(dir, 'tokens')).every((f) => statSync(join(dir, 'tokens', f)).isDirectory())).toBe(true);
  });

  it('refuses a second key with the same label', () => {
    expect(() => initTokenMasterKey({ ...base, slot })).toThrow(/already holds a key labelled "walletd-master"/);
  });

  it('names the cause: wrong PIN, missing token, missing key label', () => {
    expect(() => new Pkcs11KeyBackend({ ...base, tokenLabel: 'walletd', pin: '9999' })).toThrow(
      'masterKey.pkcs11: the token refused the PIN (CKR_PIN_INCORRECT); check pinEnv/pinFile',
    );
    expect(() => new Pkcs11KeyBackend({ ...base, tokenLabel: 'nope' })).toThrow('no token labelled "nope" is present');
    expect(() => new Pkcs11KeyBackend({ ...base, tokenLabel: 'walletd', keyLabel: 'other' })).toThrow(
      'the token holds no secret key labelled "other"',
    );
  });
});
