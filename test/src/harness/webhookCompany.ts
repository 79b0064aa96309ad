import type { Db, MasterKey } from '@walletd/core';
import { createWebhook, DestinationPolicy } from '@walletd/server';
import { seedCompany } from './seed';

/**
 * A company with one wallet row (no key material: its events are recorded, not detected) and an
 * `api` webhook to `url` taking every event, made as the API makes it (`createWebhook`, loopback
 * allowed). The dispatcher tests' common start.
 */
export async function seedWebhookCompany(
  db: Db,
  masterKey: MasterKey,
  url: string,
): Promise<{ companyId: number; walletId: number; hookId: number }> {
  const s = await seedCompany(db);
  const [w] = await db('wallets')
    .insert({ company_id: s.companyId, name: 'w', chain: 'ethereum', network: 'sepolia', secret_envelope: {} })
    .returning('id');
  const ctx = { companyId: s.companyId, keyId: 1, walletIds: null } as never;
  const hook = await createWebhook({ db, masterKey, policy: new DestinationPolicy(['127.0.0.0/8']) }, ctx, {
    type: 'api',
    config: { url },
    events: ['*'],
  });
  return { companyId: s.companyId, walletId: w.id as number, hookId: hook.id };
}

/**
 * Puts `hookId` in the state its breaker leaves it in after a fifth failure: backed off for
 * `seconds` from now, with the retry base the dispatcher records (`retryBaseSecs`, null as a
 * version before migration 049 left it).
 */
export async function backOffWebhook(db: Db, hookId: number, seconds: number, retryBaseSecs: number | null = null): Promise<void> {
  await db('webhooks')
    .where({ id: hookId })
    .update({
      consecutive_failures: 5,
      backoffs: 1,
      backed_off_at: db.fn.now(),
      backed_off_until: db.raw('now() + make_interval(secs => ?)', [seconds]),
      retry_base_secs: retryBaseSecs,
    });
}
