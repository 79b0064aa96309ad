import type { MasterKey } from '../crypto/envelope';
import type { Metrics } from './metrics';
import { Counter } from 'prom-client';

/**
 * `walletd_master_key_unwraps_total{backend}`: data keys unwrapped by the master key ("file" or
 * "pkcs11"), read from the keys at scrape time. With a network HSM each one is a round trip to
 * it, so this is the rate to size the HSM's throughput and to notice an unexpected reader.
 */
export function countMasterKeyUnwraps(metrics: Metrics, key: MasterKey): void {
  const seen = new Map<string, number>();
  new Counter({
    name: 'walletd_master_key_unwraps_total',
    help: 'Data keys unwrapped by the master key, by where it lives (file or pkcs11)',
    labelNames: ['backend'],
    registers: [metrics.registry],
    collect() {
      for (const k of [key, key.previous]) {
        if (!k) continue;
        const total = k.backend.unwraps;
        const kind = k.backend.kind;
        const before = seen.get(`${kind}:${k.id}`) ?? 0;
        if (total > before) this.inc({ backend: kind }, total - before);
        else if (before === 0) this.inc({ backend: kind }, 0);
        seen.set(`${kind}:${k.id}`, total);
      }
    },
  });
}
