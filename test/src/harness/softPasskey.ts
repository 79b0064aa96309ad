import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/** The few CBOR shapes WebAuthn's attestation needs: maps, byte and text strings, small integers. */
type Cbor = number | string | Buffer | Map<number | string, Cbor>;
function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 256) return Buffer.from([(major << 5) | 24, n]);
  return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
}
export function cbor(v: Cbor): Buffer {
  if (typeof v === 'number') return v >= 0 ? head(0, v) : head(1, -1 - v);
  if (typeof v === 'string') return Buffer.concat([head(3, Buffer.byteLength(v)), Buffer.from(v)]);
  if (Buffer.isBuffer(v)) return Buffer.concat([head(2, v.length), v]);
  return Buffer.concat([head(5, v.size), ...[...v].flatMap(([k, x]) => [cbor(k), cbor(x)])]);
}

const b64 = (b: Buffer) => b.toString('base64url');
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest();
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

/**
 * A software authenticator (P-256, ES256, no attestation) for HTTP-level tests: it answers
 * registration and authentication options as a browser with a platform authenticator would, and
 * lets a test sign with any counter, challenge or origin (what a clone or a phishing page would do).
 */
export class SoftPasskey {
  readonly id = randomBytes(16);
  private readonly keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  counter = 0;
  constructor(readonly origin: string) {}

  private authData(flags: number, counter: number, attested?: Buffer): Buffer {
    const c = Buffer.alloc(4);
    c.writeUInt32BE(counter);
    return Buffer.concat([sha256(new URL(this.origin).hostname), Buffer.from([flags]), c, attested ?? Buffer.alloc(0)]);
  }

  private clientData(type: string, challenge: string, origin = this.origin): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** `navigator.credentials.create`'s answer to the server's options, as JSON. */
  register(options: { challenge: string }) {
    const jwk = this.keys.publicKey.export({ format: 'jwk' });
    const cose = cbor(
      new Map<number, Cbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x as string, 'base64url')],
        [-3, Buffer.from(jwk.y as string, 'base64url')],
      ]),
    );
    const idLen = Buffer.alloc(2);
    idLen.writeUInt16BE(this.id.length);
    const authData = this.authData(UP | UV | AT, this.counter, Buffer.concat([Buffer.alloc(16), idLen, this.id, cose]));
    const attestationObject = cbor(
      new Map<string, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return {
      id: b64(this.id),
      rawId: b64(this.id),
      type: 'public-key',
      response: {
        clientDataJSON: b64(this.clientData('webauthn.create', options.challenge)),
        attestationObject: b64(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
    };
  }

  /** `navigator.credentials.get`'s answer: the counter moves up by one unless the test names one. */
  assert(options: { challenge: string }, over: { counter?: number; origin?: string } = {}) {
    const counter = over.counter ?? ++this.counter;
    const authData = this.authData(UP | UV, counter);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, over.origin);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.keys.privateKey);
    return {
      id: b64(this.id),
      rawId: b64(this.id),
      type: 'public-key',
      response: { clientDataJSON: b64(clientDataJSON), authenticatorData: b64(authData), signature: b64(signature) },
      clientExtensionResults: {},
    };
  }
}
