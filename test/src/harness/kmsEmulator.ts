import { createHash, createHmac, generateKeyPairSync, type KeyObject, randomBytes, randomUUID, sign, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SigningKey } from 'ethers';

/**
 * An EMULATOR of the AWS KMS wire protocol (JSON 1.1, `X-Amz-Target: TrentService.<Operation>`,
 * SigV4-signed requests) on a loopback port: it holds real keys it made itself and answers
 * `GetPublicKey` and `Sign` by computing them, so a walletd address backed by one of its keys can
 * really spend on a test chain. It is not AWS and not a recording: no AWS endpoint is reachable
 * from the tests. It checks each request's SigV4 signature against the one credential it knows,
 * and can be told to answer a key's calls with a KMS error (AccessDenied, Throttling, Disabled).
 */
export interface KmsEmulator {
  url: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** A new key: `ECC_SECG_P256K1` (secp256k1), `ECC_NIST_EDWARDS25519` or `ECC_NIST_P256`; its ARN. */
  createKey(spec: KeySpec): string;
  /** Points `alias/<name>` at a key (KMS's UpdateAlias, done here by the test, not over the wire). */
  alias(name: string, keyId: string): void;
  /** The key's DER SPKI, as GetPublicKey answers it: to check an address independently of walletd. */
  publicKey(keyId: string): Buffer;
  /** The next `times` calls of `operation` on `keyId` answer the KMS exception `error` (400). */
  fail(keyId: string, operation: 'GetPublicKey' | 'Sign', error: KmsError, times?: number): void;
  /** What was called, in order (the operation and the key). */
  calls: { operation: string; keyId: string; ok: boolean }[];
  stop(): Promise<void>;
}

export type KeySpec = 'ECC_SECG_P256K1' | 'ECC_NIST_EDWARDS25519' | 'ECC_NIST_P256';
export type KmsError = 'AccessDeniedException' | 'ThrottlingException' | 'DisabledException';

interface HeldKey {
  spec: KeySpec;
  spki: Buffer;
  sign(message: Buffer, messageType: string): Buffer;
}

const SECP256K1_SPKI_PREFIX = Buffer.from('3056301006072a8648ce3d020106052b8104000a034200', 'hex');
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const ALGORITHMS: Record<KeySpec, string> = {
  ECC_SECG_P256K1: 'ECDSA_SHA_256',
  ECC_NIST_EDWARDS25519: 'ED25519_SHA_512',
  ECC_NIST_P256: 'ECDSA_SHA_256',
};

export async function startKmsEmulator(region = 'eu-west-1'): Promise<KmsEmulator> {
  const accessKeyId = `AKIA${randomBytes(8).toString('hex').toUpperCase()}`;
  const secretAccessKey = randomBytes(30).toString('base64');
  const keys = new Map<string, HeldKey>();
  const aliases = new Map<string, string>();
  const failures: { keyId: string; operation: string; error: KmsError; left: number }[] = [];
  const calls: KmsEmulator['calls'] = [];

  const server: Server = createServer(async (req, res) => {
    let raw = Buffer.alloc(0);
    for await (const chunk of req) raw = Buffer.concat([raw, chunk as Buffer]);
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUID() });
      res.end(JSON.stringify(body));
    };
    const error = (type: string, message: string, status = 400) => answer(status, { __type: type, message });
    if (!sigV4Valid(req, raw, accessKeyId, secretAccessKey, region)) {
      return error('InvalidSignatureException', 'The request signature we calculated does not match the signature you provided.');
    }
    const operation = String(req.headers['x-amz-target']).replace('TrentService.', '');
    const body = JSON.parse(raw.toString('utf8')) as { KeyId: string; Message?: string; MessageType?: string; SigningAlgorithm?: string };
    const wanted = aliases.get(body.KeyId) ?? body.KeyId;
    const arn = [...keys.keys()].find((k) => k === wanted || k.endsWith(`/${wanted}`));
    const key = arn ? keys.get(arn) : undefined;
    const failure = failures.find((f) => f.left > 0 && f.operation === operation && f.keyId === arn);
    calls.push({ operation, keyId: arn ?? body.KeyId, ok: !!key && !failure });
    if (!key || !arn) return error('NotFoundException', `Key '${body.KeyId}' does not exist`);
    if (failure) {
      failure.left--;
      const messages: Record<KmsError, string> = {
        AccessDeniedException: `User: arn:aws:iam::111122223333:user/walletd is not authorized to perform: kms:${operation} on resource: ${arn} because no identity-based policy allows the kms:${operation} action`,
        ThrottlingException: 'Rate exceeded',
        DisabledException: `${arn} is disabled.`,
      };
      return error(failure.error, messages[failure.error]);
    }
    if (operation === 'GetPublicKey') {
      return answer(200, {
        KeyId: arn,
        KeySpec: key.spec,
        CustomerMasterKeySpec: key.spec,
        KeyUsage: 'SIGN_VERIFY',
        PublicKey: key.spki.toString('base64'),
        SigningAlgorithms: [ALGORITHMS[key.spec]],
      });
    }
    if (operation === 'Sign') {
      if (body.SigningAlgorithm !== ALGORITHMS[key.spec])
        return error('InvalidKeyUsageException', `${body.SigningAlgorithm} is not valid for ${arn}`);
      const message = Buffer.from(body.Message ?? '', 'base64');
      return answer(200, {
        KeyId: arn,
        SigningAlgorithm: body.SigningAlgorithm,
        Signature: key.sign(message, body.MessageType ?? 'RAW').toString('base64'),
      });
    }
    return error('UnknownOperationException', `${operation} is not emulated`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    accessKeyId,
    secretAccessKey,
    calls,
    createKey(spec) {
      const arn = `arn:aws:kms:${region}:111122223333:key/${randomUUID()}`;
      keys.set(arn, spec === 'ECC_SECG_P256K1' ? secp256k1Key() : nodeKey(spec));
      return arn;
    },
    alias: (name, keyId) => {
      aliases.set(name, keyId);
    },
    publicKey: (keyId) => (keys.get(keyId) as HeldKey).spki,
    fail(keyId, operation, error, times = 1) {
      failures.push({ keyId, operation, error, left: times });
    },
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * secp256k1 signs the digest as given (`MessageType: DIGEST`), DER-encoded as KMS answers; every
 * other signature carries the high `s` (n − s), which KMS may return, so callers must normalise.
 */
function secp256k1Key(): HeldKey {
  const key = new SigningKey(randomBytes(32));
  let count = 0;
  return {
    spec: 'ECC_SECG_P256K1',
    spki: Buffer.concat([SECP256K1_SPKI_PREFIX, Buffer.from(key.publicKey.slice(2), 'hex')]),
    sign(message, messageType) {
      const digest = messageType === 'DIGEST' ? message : createHash('sha256').update(message).digest();
      const sig = key.sign(digest);
      let s = BigInt(sig.s);
      if (count++ % 2 === 1) s = N - s;
      return derOf(BigInt(sig.r), s);
    },
  };
}

/** Ed25519 (whole message, `RAW`) and P-256 (to be refused by walletd) through Node's crypto. */
function nodeKey(spec: 'ECC_NIST_EDWARDS25519' | 'ECC_NIST_P256'): HeldKey {
  const { publicKey, privateKey } =
    spec === 'ECC_NIST_EDWARDS25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    spec,
    spki: publicKey.export({ format: 'der', type: 'spki' }),
    sign: (message) => sign(spec === 'ECC_NIST_EDWARDS25519' ? null : 'sha256', message, privateKey as KeyObject),
  };
}

/** ECDSA-Sig-Value: SEQUENCE { INTEGER r, INTEGER s }, minimal big-endian integers. */
function derOf(r: bigint, s: bigint): Buffer {
  const int = (v: bigint) => {
    let b = Buffer.from(v.toString(16).padStart(64, '0'), 'hex');
    while (b.length > 1 && b[0] === 0 && ((b[1] as number) & 0x80) === 0) b = b.subarray(1);
    if (((b[0] as number) & 0x80) !== 0) b = Buffer.concat([Buffer.from([0]), b]);
    return Buffer.concat([Buffer.from([0x02, b.length]), b]);
  };
  const seq = Buffer.concat([int(r), int(s)]);
  return Buffer.concat([Buffer.from([0x30, seq.length]), seq]);
}

/**
 * AWS Signature Version 4 checked as KMS checks it: the canonical request of the signed headers and
 * the body's SHA-256, signed with the key derived from the secret, the date, the region and `kms`.
 */
function sigV4Valid(req: IncomingMessage, body: Buffer, accessKeyId: string, secret: string, region: string): boolean {
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/kms\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      String(req.headers.authorization ?? ''),
    );
  if (!m || m[1] !== accessKeyId || m[3] !== region) return false;
  const [, , day, , signedHeaders, signature] = m as unknown as string[];
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
  const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
  const names = (signedHeaders as string).split(';');
  const canonical = [
    req.method,
    (req.url ?? '/').split('?')[0],
    (req.url ?? '').split('?')[1] ?? '',
    ...names.map(
      (n) =>
        `${n}:${String(req.headers[n] ?? '')
          .trim()
          .replace(/\s+/g, ' ')}`,
    ),
    '',
    signedHeaders,
    sha256(body),
  ].join('\n');
  const scope = `${day}/${region}/kms/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day as string), region), 'kms'), 'aws4_request');
  const expected = createHmac('sha256', key).update(toSign).digest();
  return timingSafeEqual(expected, Buffer.from(signature as string, 'hex'));
}
