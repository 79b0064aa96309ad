import { initTokenMasterKey, MasterKey, Pkcs11KeyBackend } from '@walletd/core';
import { describeWithSoftHsm, newSoftHsmToken, SOFTHSM_MODULE, type SoftHsmToken } from '@walletd/test-harness';

/** Issue 45 §1: the envelope's data keys wrapped by an AES key inside a real SoftHSM2 token. */
describeWithSoftHsm('master key in a real SoftHSM2 token', () => {
  let token: SoftHsmToken;
  const base = () => ({ module: SOFTHSM_MODULE, pin: token.pin, keyLabel: 'walletd-master', tokenLabel: token.label });

  beforeAll(() => {
    token = newSoftHsmToken(`unit-${process.pid}`);
    initTokenMasterKey(base());
  });

  it('seals and opens envelopes with a key that stays in the token; a second session agrees', () => {
    const backend = new Pkcs11KeyBackend(base());
    const mk = new MasterKey(backend);
    const env = mk.seal(Buffer.from('seed words'), 'wallet:1');
    expect(mk.open(env, 'wallet:1').toString()).toBe('seed words');
    // Bound to its record: the same envelope on another record does not open.
    expect(() => mk.open(env, 'wallet:2')).toThrow(/failed authentication/);
    const again = new Pkcs11KeyBackend({ ...base(), tokenLabel: undefined, slot: token.slot });
    expect(again.fingerprint()).toBe(backend.fingerprint());
    backend.close();
    expect(new MasterKey(again).open(env, 'wallet:1').toString()).toBe('seed words');
    expect(again.unwraps).toBe(1);
    again.close();
  });

  it('a file key and the token key differ, and a rotation re-wraps only the data key', () => {
    const file = new MasterKey(Buffer.alloc(32, 7));
    const sealed = file.seal(Buffer.from('totp secret'), 'member-totp:3');
    const backend = new Pkcs11KeyBackend(base());
    const ring = new MasterKey(backend, file);
    expect(ring.id).not.toBe(file.id);
    expect(ring.open(sealed, 'member-totp:3').toString()).toBe('totp secret');
    const moved = ring.rewrap(sealed, 'member-totp:3');
    expect(moved).toMatchObject({ v: 1, kid: ring.id, ct: sealed.ct });
    expect(moved.wdk).not.toBe(sealed.wdk);
    // The token alone opens it now; the file key alone no longer can.
    expect(new MasterKey(backend).open(moved, 'member-totp:3').toString()).toBe('totp secret');
    expect(() => file.open(moved, 'member-totp:3')).toThrow(/different master key/);
    backend.close();
  });

  it('refuses a second key with the same label', () => {
    expect(() => initTokenMasterKey(base())).toThrow(/already holds a key labelled "walletd-master"/);
  });

  it('names the cause: wrong PIN, missing token, missing key label', () => {
    expect(() => new Pkcs11KeyBackend({ ...base(), pin: '9999' })).toThrow(
      'masterKey.pkcs11: the token refused the PIN (CKR_PIN_INCORRECT); check pinEnv/pinFile',
    );
    expect(() => new Pkcs11KeyBackend({ ...base(), tokenLabel: 'nope' })).toThrow('no token labelled "nope" is present');
    expect(() => new Pkcs11KeyBackend({ ...base(), keyLabel: 'other' })).toThrow('the token holds no secret key labelled "other"');
  });
});
