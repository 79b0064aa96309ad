import { Secret, TOTP } from 'otpauth';

/** RFC 6238 as every authenticator app reads it: SHA-1, 30-second steps, 6 digits. */
const PERIOD_S = 30;
const ISSUER = 'walletd';

function totp(secretBase32: string, label = 'member'): TOTP {
  return new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: 6, period: PERIOD_S, secret: Secret.fromBase32(secretBase32) });
}

/** A fresh 160-bit secret (RFC 4226's recommended length), base32 as the apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

export function otpauthUri(secretBase32: string, email: string): string {
  return totp(secretBase32, email).toString();
}

/**
 * The otpauth:// URI as a QR code, an SVG document rendered here (the page's CSP allows no data:
 * images and the browser fetches nothing): margin 2, error correction M, what the apps scan.
 */
// qrcode is required when a member enrols (1 MB of heap every process carried otherwise; lazyModules.test).
export const otpauthQrSvg = (uri: string): Promise<string> =>
  (require('qrcode') as typeof import('qrcode')).toString(uri, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });

/**
 * The step (30-second counter) a code belongs to, within one step either side of `nowMs` (clock
 * drift between phone and server), or null. The caller refuses a step at or below the last one
 * accepted: a code works once.
 */
export function totpStep(secretBase32: string, code: string, nowMs: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const t = totp(secretBase32);
  const delta = t.validate({ token: code, timestamp: nowMs, window: 1 });
  if (delta === null) return null;
  return t.counter({ timestamp: nowMs }) + delta;
}
