import type { Express } from 'express';

/** Distinct addresses remembered before the memo starts over (callers choose what they send). */
const MEMO_LIMIT = 10_000;

/**
 * Express's `trust proxy` setting, with the trust decision for an address list remembered per
 * address. Why: `req.ip` asks the compiled trust function about each hop of `X-Forwarded-For`
 * on every request, and for a list of addresses or subnets (`server.trustProxy: [...]`) each
 * question parses the address again with ipaddr.js (~15 µs of the `/v1/me` bench's CPU per
 * request, bench/README.md, `api`, "/v1/me, the rest of the gap"). For such a list the answer
 * depends on the address alone (proxy-addr's compiled list ignores the hop's index), so it is the
 * same every time: remembered, bounded (cleared past MEMO_LIMIT addresses). Booleans and hop counts
 * parse nothing and keep Express's own function.
 */
export function setTrustProxy(app: Express, value: boolean | number | string[]): void {
  app.set('trust proxy', value);
  if (!Array.isArray(value)) return;
  const compiled = app.get('trust proxy fn') as (address: string, hop: number) => boolean;
  const known = new Map<string, boolean>();
  app.set('trust proxy fn', (address: string, hop: number): boolean => {
    let trusted = known.get(address);
    if (trusted === undefined) {
      trusted = compiled(address, hop);
      if (known.size >= MEMO_LIMIT) known.clear();
      known.set(address, trusted);
    }
    return trusted;
  });
}
