import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { DestinationPolicy } from './destinationPolicy';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls.connect that resolves, then refuses any address the policy forbids.
 * The socket connects to exactly the addresses checked here, so DNS rebinding between a check and
 * the connection is impossible. (Literal-IP URLs skip lookup; they are checked before connecting.)
 */
export function guardedLookup(policy: DestinationPolicy, plainHttp: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const list = addresses as LookupAddress[];
      for (const a of list) {
        const why =
          policy.refusal(a.address) ?? (plainHttp && !policy.isAllowListed(a.address) ? 'plain http to a non-allow-listed address' : null);
        if (why) {
          const e: NodeJS.ErrnoException = new Error(`destination ${hostname} resolves to a refused address: ${why}`);
          e.code = 'EDESTINATION';
          return callback(e, '');
        }
      }
      if (options.all) return callback(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
      callback(null, first.address, first.family);
    });
  };
}
