import { createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { awsKmsSigner, BaseError } from '@walletd/core';
import { evmAddressOf, signTransactionWith } from '@walletd/plugin-evm';
import { computeAddress, hexlify, recoverAddress, Signature, Transaction } from 'ethers';

// Shaped by hand from the AWS KMS API reference (see the file's _provenance): no recorded
// response for a secp256k1 or Ed25519 key was found in public code.
const fixture = JSON.parse(readFileSync(join(__dirname, '..', '..', 'fixtures', 'aws-kms', 'responses.json'), 'utf8'));
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

interface Seen {
  target: string;
  auth: string;
  body: Record<string, unknown>;
}

/**
 * A loopback HTTP server answering the KMS JSON 1.1 protocol from the fixture (X-Amz-Target
 * `TrentService.<Operation>`), one queued answer per call, and keeping what the SDK sent.
 */
function replayingKms(answers: Record<string, unknown[]>): Promise<{ server: Server; url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const target = String(req.headers['x-amz-target']);
    seen.push({ target, auth: String(req.headers.authorization), body: JSON.parse(raw) });
    const next = answers[target.replace('TrentService.', '')]?.shift();
    res.writeHead(next ? 200 : 400, { 'content-type': 'application/x-amz-json-1.1' });
    res.end(JSON.stringify(next ?? { __type: 'NotFoundException', message: `no answer left for ${target}` }));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen })),
  );
}

const config = (url: string, keyId: string) => ({
  keyId,
  region: 'eu-west-1',
  endpoint: url,
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
});

/**
 * Issue 45 §4: the AWS KMS `KeySigner` through the real @aws-sdk/client-kms against a replaying
 * server: the address comes from GetPublicKey's DER SPKI, Sign is asked for the digest
 * (`MessageType: DIGEST`, `ECDSA_SHA_256`), its DER answer becomes a low-s `r‖s` that verifies
 * against the public key and recovers the key's address in a signed EVM transaction.
 */
describe('AWS KMS KeySigner (replayed KMS responses)', () => {
  const servers: Server[] = [];
  afterAll(async () => {
    for (const s of servers) await new Promise((r) => s.close(r));
  });

  it('secp256k1: the address from GetPublicKey, an EVM transaction signed by Sign (either s) recovers it', async () => {
    const k = fixture.secp256k1;
    const kms = await replayingKms({ GetPublicKey: [k.getPublicKey], Sign: [...k.sign] });
    servers.push(kms.server);
    const signer = await awsKmsSigner(config(kms.url, k.keyId));
    expect(signer.curve).toBe('secp256k1');
    const spki = createPublicKey({ key: Buffer.from(k.getPublicKey.PublicKey, 'base64'), format: 'der', type: 'spki' });
    const address = evmAddressOf(signer);
    expect(address).toBe(computeAddress(hexlify(signer.publicKey())));

    const tx = k.transaction;
    const request = {
      ...tx,
      chainId: BigInt(tx.chainId),
      value: BigInt(tx.value),
      gasLimit: BigInt(tx.gasLimit),
      maxFeePerGas: BigInt(tx.maxFeePerGas),
      maxPriorityFeePerGas: BigInt(tx.maxPriorityFeePerGas),
    };
    // The first Sign answer has a low s, the second the high one (n − s): both end low and recover the address.
    for (let i = 0; i < 2; i++) {
      const raw = await signTransactionWith(signer, request);
      const signed = Transaction.from(raw);
      expect(signed.from).toBe(address);
      expect(signed.unsignedHash).toBe(k.digest);
      const sig = signed.signature as Signature;
      expect(BigInt(sig.s) <= N / 2n).toBe(true);
      const rs = Buffer.concat([Buffer.from(sig.r.slice(2), 'hex'), Buffer.from(sig.s.slice(2), 'hex')]);
      // The r‖s verifies against KMS's public key over the digest (ECDSA without hashing again).
      expect(verifyDigest(spki, k.digest, rs)).toBe(true);
      expect(recoverAddress(k.digest, sig)).toBe(address);
    }
    // What the SDK asked: the digest itself, to sign as a digest, signed (SigV4) with the credentials.
    const signs = kms.seen.filter((s) => s.target === 'TrentService.Sign');
    expect(signs).toHaveLength(2);
    for (const s of signs) {
      expect(s.body).toEqual({
        KeyId: k.keyId,
        Message: Buffer.from(k.digest.slice(2), 'hex').toString('base64'),
        MessageType: 'DIGEST',
        SigningAlgorithm: 'ECDSA_SHA_256',
      });
      expect(s.auth).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/kms\/aws4_request/);
    }
  });

  it('ed25519: the key from GetPublicKey, a RAW ED25519_SHA_512 signature that verifies', async () => {
    const k = fixture.ed25519;
    const kms = await replayingKms({ GetPublicKey: [k.getPublicKey], Sign: [...k.sign] });
    servers.push(kms.server);
    const signer = await awsKmsSigner(config(kms.url, k.keyId));
    expect(signer.curve).toBe('ed25519');
    const message = Buffer.from(k.message, 'base64');
    const sig = await signer.sign(message);
    const spki = createPublicKey({ key: Buffer.from(k.getPublicKey.PublicKey, 'base64'), format: 'der', type: 'spki' });
    expect(verify(null, message, spki, sig)).toBe(true);
    expect(Buffer.from(signer.publicKey())).toEqual(Buffer.from(k.getPublicKey.PublicKey, 'base64').subarray(-32));
    expect(kms.seen.find((s) => s.target === 'TrentService.Sign')?.body).toMatchObject({
      MessageType: 'RAW',
      SigningAlgorithm: 'ED25519_SHA_512',
    });
  });

  it('refuses a key that cannot sign for a chain, and a KMS error comes back as walletd’s own, without the credentials', async () => {
    const k = fixture.secp256k1;
    const p256 = { ...k.getPublicKey, KeySpec: 'ECC_NIST_P256', CustomerMasterKeySpec: 'ECC_NIST_P256' };
    const kms = await replayingKms({ GetPublicKey: [p256] });
    servers.push(kms.server);
    const refused = await awsKmsSigner(config(kms.url, k.keyId)).catch((e) => e);
    expect(refused).toBeInstanceOf(BaseError);
    expect(refused.message).toContain('is ECC_NIST_P256 for SIGN_VERIFY');
    const missing = await awsKmsSigner(config(kms.url, k.keyId)).catch((e) => e);
    expect(missing).toBeInstanceOf(BaseError);
    expect(missing.code).toBe('kms_error');
    expect(missing.message).toMatch(/^KMS GetPublicKey for arn:aws:kms:.* failed: NotFoundException/);
    expect(missing.message).not.toContain('wJalrXUtnFEMI');
  });
});

/** ECDSA verification of a 32-byte digest as given (KMS's DIGEST mode): Node's verify would hash it again. */
function verifyDigest(key: ReturnType<typeof createPublicKey>, digest: string, rs: Buffer): boolean {
  const jwk = key.export({ format: 'jwk' });
  const point = `0x04${Buffer.from(jwk.x as string, 'base64url').toString('hex')}${Buffer.from(jwk.y as string, 'base64url').toString('hex')}`;
  for (const yParity of [0, 1] as const) {
    const sig = Signature.from({ r: hexlify(rs.subarray(0, 32)), s: hexlify(rs.subarray(32)), yParity });
    if (recoverAddress(digest, sig) === computeAddress(point)) return true;
  }
  return false;
}
