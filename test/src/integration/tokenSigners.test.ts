import { createPublicKey, randomBytes, verify } from 'node:crypto';
import { generateTokenKey, type TokenKeyConfig, tokenSigner } from '@walletd/core';
import { evmAddressOf, signTransactionWith } from '@walletd/plugin-evm';
import { type Anvil, ANVIL_FUNDER, describeWithSoftHsm, newSoftHsmToken, SOFTHSM_MODULE, startAnvil } from '@walletd/test-harness';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/**
 * Issue 45 §3: keys generated inside a real SoftHSM2 token sign there. secp256k1 through CKM_ECDSA
 * (low s and the recovery id worked out outside the token) lands a transaction on anvil from the
 * address of the token's public key; Ed25519 through CKM_EDDSA verifies with Node's own crypto.
 */
describeWithSoftHsm('keys that sign inside a SoftHSM2 token', () => {
  let config: (label: string) => TokenKeyConfig;
  let anvil: Anvil;

  beforeAll(async () => {
    const token = newSoftHsmToken(`signers-${process.pid}`);
    config = (keyLabel) => ({ module: SOFTHSM_MODULE, tokenLabel: token.label, pin: token.pin, keyLabel });
    anvil = await startAnvil();
  });
  afterAll(async () => {
    await anvil.stop();
  });

  it('secp256k1: an EVM transfer signed in the token lands from the token key’s address', async () => {
    generateTokenKey(config('gas-station'), 'secp256k1');
    expect(() => generateTokenKey(config('gas-station'), 'secp256k1')).toThrow('already holds a key labelled "gas-station"');
    const signer = tokenSigner(config('gas-station'), 'secp256k1');
    try {
      const address = evmAddressOf(signer);
      await anvil.receipt(await anvil.send(address, 10n ** 18n));
      const chainId = BigInt(await anvil.rpc<string>('eth_chainId'));
      const raw = await signTransactionWith(signer, {
        type: 2,
        chainId,
        nonce: 0,
        to: ANVIL_FUNDER,
        value: 12345n,
        gasLimit: 21000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 10n ** 9n,
      });
      const hash = await anvil.rpc<string>('eth_sendRawTransaction', [raw]);
      expect((await anvil.receipt(hash)).status).toBe('0x1');
      const tx = await anvil.rpc<{ from: string; value: string }>('eth_getTransactionByHash', [hash]);
      expect(tx.from.toLowerCase()).toBe(address.toLowerCase());
      expect(BigInt(tx.value)).toBe(12345n);
      // Every signature the token gives is normalised to the low s that chains accept.
      for (let i = 0; i < 16; i++) {
        const s = BigInt(`0x${Buffer.from(signer.sign(randomBytes(32)).subarray(32)).toString('hex')}`);
        expect(s <= N / 2n).toBe(true);
      }
    } finally {
      signer.close();
    }
  });

  it('ed25519: a signature made in the token verifies with the token key’s public key', () => {
    generateTokenKey(config('fee-payer'), 'ed25519');
    const signer = tokenSigner(config('fee-payer'), 'ed25519');
    try {
      const pub = signer.publicKey();
      expect(pub).toHaveLength(32);
      const message = randomBytes(200);
      const sig = signer.sign(message);
      const key = createPublicKey({
        key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), pub]),
        format: 'der',
        type: 'spki',
      });
      expect(verify(null, message, key, sig)).toBe(true);
      expect(verify(null, Buffer.concat([message, Buffer.from([0])]), key, sig)).toBe(false);
    } finally {
      signer.close();
    }
  });

  it('refuses a key label the token does not hold, and a wrong PIN, in one line', () => {
    expect(() => tokenSigner(config('absent'), 'secp256k1')).toThrow('the token holds no key pair labelled "absent"');
    expect(() => tokenSigner({ ...config('gas-station'), pin: '0000' }, 'secp256k1')).toThrow('CKR_PIN_INCORRECT');
  });
});
