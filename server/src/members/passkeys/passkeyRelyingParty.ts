import type { ConsoleSettings } from '@walletd/core';
import { consoleBaseUrl } from '../links/consoleUrl';

export interface RelyingParty {
  /** The WebAuthn RP id: the console's host name; a passkey works only under it. */
  rpID: string;
  /** The exact origin the browser must report (scheme, host and port). */
  origin: string;
  rpName: string;
}

/**
 * Passkeys are bound to where people open the console: `console.publicUrl` when set (a proxy or TLS
 * in front), else the address `serve` prints. Read per ceremony, so it is never taken from a
 * request's Host header (which a caller chooses).
 */
export function relyingParty(c: Pick<ConsoleSettings, 'publicUrl' | 'host' | 'port'>): RelyingParty {
  const url = new URL(c.publicUrl ?? consoleBaseUrl(c.host, c.port));
  return { rpID: url.hostname, origin: url.origin, rpName: 'walletd' };
}
