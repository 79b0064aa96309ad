import {
  call,
  createTestDatabase,
  keyFor,
  recordDeposit,
  seedCompany,
  startTestApp,
  type TestApp,
  type TestDatabase,
} from '@walletd/test-harness';
import { listAudit } from '../company/auditLog';

let t: TestDatabase;
let app: TestApp;

beforeAll(async () => {
  t = await createTestDatabase();
  app = await startTestApp(t.db, { webhooks: { allowCidrs: ['127.0.0.0/8'] } });
});
afterAll(async () => {
  await app.close();
  await t.drop();
});

describe('webhook changes through /v1 are audited with the API key', () => {
  it('create, change, rotate, redeliver, replay and delete each write a row naming the key, never a secret', async () => {
    const s = await seedCompany(t.db);
    const dev = await keyFor(t.db, s.companyId, { actions: ['webhooks:manage', 'wallets:create'], role: 'developer' });
    const owner = (await t.db('members').where({ id: dev.memberId }).first('email')).email as string;
    const v1 = (method: string, path: string, body?: unknown) => call(app.url, method, `/v1${path}`, { key: dev.key, body });
    const w = (await v1('POST', '/wallets', { name: 'w', chain: 'ethereum', network: 'sepolia' })).body.id as number;

    const url = 'http://127.0.0.1:9/hook?token=receiver-credential';
    const created = await v1('POST', '/webhooks', { type: 'api', config: { url }, events: ['*'] });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    expect((await v1('PATCH', `/webhooks/${id}`, { events: ['deposit.confirmed'] })).status).toBe(200);
    const rotated = await v1('POST', `/webhooks/${id}/rotate-secret`, { signingSecret: 'chosen-secret-0123456789' });
    expect(rotated.status).toBe(200);
    const since = new Date(Date.now() - 60_000).toISOString();
    await recordDeposit(t.db, s.companyId, w);
    const delivery = (await v1('GET', `/webhooks/${id}/deliveries`)).body.deliveries[0];
    await t.db('webhook_deliveries').where({ id: delivery.id }).update({ status: 'failed', next_attempt_at: null });
    expect((await v1('POST', `/webhooks/${id}/deliveries/${delivery.id}/redeliver`)).status).toBe(202);
    await t.db('webhook_deliveries').where({ webhook_id: id }).update({ status: 'delivered' });
    expect((await v1('POST', `/webhooks/${id}/replay`, { since })).status).toBe(202);
    const slackUrl = 'http://127.0.0.1:9/services/T000/B000/XXXXXXXXXXXXSECRET';
    const slack = await v1('POST', '/webhooks', { type: 'slack', config: { url: slackUrl }, events: ['*'] });
    const botToken = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
    const tg = await v1('POST', '/webhooks', { type: 'telegram', config: { botToken, chatId: -1001234 }, events: ['*'] });
    expect((await v1('DELETE', `/webhooks/${id}`)).status).toBe(204);
    // Reads are not changes.
    await v1('GET', '/webhooks');

    const rows = await t.db('audit_log').where({ company_id: s.companyId }).andWhere('action', 'like', 'webhook.%').orderBy('id');
    expect(rows.map((r) => [r.action, r.actor_type, r.actor_id, r.details.webhookId])).toEqual([
      ['webhook.created', 'api_key', String(dev.id), id],
      ['webhook.changed', 'api_key', String(dev.id), id],
      ['webhook.secret_rotated', 'api_key', String(dev.id), id],
      ['webhook.redelivered', 'api_key', String(dev.id), id],
      ['webhook.replayed', 'api_key', String(dev.id), id],
      ['webhook.created', 'api_key', String(dev.id), slack.body.id],
      ['webhook.created', 'api_key', String(dev.id), tg.body.id],
      ['webhook.deleted', 'api_key', String(dev.id), id],
    ]);
    expect(rows.every((r) => String(r.ip).includes('127.0.0.1'))).toBe(true);
    expect(rows[0].details).toMatchObject({ type: 'api', destination: 'http://127.0.0.1:9/hook', events: ['*'] });
    expect(rows[1].details).toMatchObject({ fields: ['events'], events: ['deposit.confirmed'] });
    expect(rows[2].details).toEqual({ webhookId: id, chosen: true });
    expect(rows[3].details).toMatchObject({ deliveryId: delivery.id, created: true });
    expect(rows[4].details).toMatchObject({ since, queued: 1 });
    expect(rows[5].details).toMatchObject({ type: 'slack', destination: 'slack' });
    expect(rows[6].details).toMatchObject({ type: 'telegram', destination: 'telegram chat -1001234' });
    const text = JSON.stringify(rows);
    for (const secret of [
      'receiver-credential',
      'chosen-secret-0123456789',
      created.body.signingSecret,
      slackUrl,
      'SECRET',
      botToken,
      'Dsaw',
    ])
      expect(text).not.toContain(secret);

    // The console's audit log names the key and the member it acts for.
    const page = await listAudit(t.db, s.companyId, { actionPrefix: 'webhook.', limit: 50 });
    expect(new Set(page.data.map((r) => r.actor.label))).toEqual(new Set([`API key #${dev.id} (${owner})`]));
  });

  it('writes nothing for a refused change', async () => {
    const s = await seedCompany(t.db);
    const reader = await keyFor(t.db, s.companyId, { actions: ['wallets:read'] });
    const refused = await call(app.url, 'POST', '/v1/webhooks', {
      key: reader.key,
      body: { type: 'api', config: { url: 'http://127.0.0.1:9/hook' }, events: ['*'] },
    });
    expect(refused.status).toBe(403);
    const invalid = await call(app.url, 'POST', '/v1/webhooks', { key: s.rootKey, body: { type: 'api', config: {}, events: ['*'] } });
    expect(invalid.status).toBe(400);
    expect(await t.db('audit_log').where({ company_id: s.companyId }).andWhere('action', 'like', 'webhook.%')).toEqual([]);
  });
});
