import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { MasterKey, createLogger } from '@walletd/core';
import { type Dispatcher, createDispatcher, loadPlugins } from '@walletd/server';
import {
  type ConsoleServer,
  type TestDatabase,
  type TestReceiver,
  GENUINE,
  createTestDatabase,
  eventually,
  onboardMember,
  recordDeposit,
  seedCompany,
  seedWatchedAddress,
  signatureChecks,
  startConsole,
  startReceiver,
  testConfig,
} from '@walletd/test-harness';
import { describeWithChromium, screenshotDir, signInInBrowser } from '../harness/chromium';

const DOCS = screenshotDir();
/** Loopback receivers allowed; retries 1, 2, 4, 8 ms apart so a delivery fails for good at once. */
const webhooks = { allowCidrs: ['127.0.0.0/8'], retryBaseMs: 1 };

/**
 * The webhooks page as a developer uses it, against a real HTTP receiver on loopback and the real
 * dispatcher: create a webhook in the console (the secret shown once verifies the deliveries), see
 * an event delivered with the receiver's status, see the failure when the receiver breaks (five
 * attempts, the endpoint backed off), and redeliver from the page once it is fixed: the receiver
 * gets the same event id again. A viewer is shown no controls.
 */
describeWithChromium('the webhooks page in a real browser', () => {
  let t: TestDatabase;
  let con: ConsoleServer;
  let rx: TestReceiver;
  let dispatcher: Dispatcher;
  const browsers: BrowserContext[] = [];
  const masterKey = new MasterKey(randomBytes(32));

  beforeAll(async () => {
    t = await createTestDatabase();
    con = await startConsole(t.db, { webhooks }, masterKey);
    rx = await startReceiver();
    const config = testConfig({ webhooks });
    dispatcher = createDispatcher({ config, logger: createLogger({ level: 'silent' }), db: t.db, masterKey, plugins: loadPlugins() });
  });
  afterAll(async () => {
    for (const b of browsers) await b.close();
    await dispatcher?.stop();
    await rx?.close();
    await con?.close();
    await t?.drop();
  });

  type Member = Awaited<ReturnType<typeof onboardMember>>;
  const signIn = (m: Member): Promise<Page> => signInInBrowser(con.url, m, browsers);

  /** Dispatcher rounds (the real claim-send-record) until `done` holds. */
  const dispatchUntil = (done: () => Promise<boolean>, timeoutMs?: number) =>
    eventually(
      async () => {
        await dispatcher.runOnce();
        return done();
      },
      (ok) => ok,
      timeoutMs,
    );

  it('create → delivered with the receiver status → receiver fails, the page shows it → redeliver after the fix: the same event id again', async () => {
    const s = await seedCompany(t.db);
    const walletId = await seedWatchedAddress(t.db, s.companyId, '0x00000000000000000000000000000000000000aa');
    const dev = await onboardMember(con, t.db, { companyId: s.companyId, email: 'dev@acme.test', role: 'developer' });
    const page = await signIn(dev);

    // Create the webhook on the page; the signing secret is shown this once.
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByTestId('webhooks-empty').waitFor();
    await page.getByLabel('URL').fill(`${rx.url}/walletd`);
    await page.getByLabel('Events (comma-separated; * for all)').fill('*');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const secret = (await page.getByTestId('signing-secret').locator('code').textContent()) as string;
    expect(secret).toMatch(/^whsec_/);
    const row = page.getByTestId('webhooks').locator('tbody tr');
    await row.waitFor();
    await expect(row.locator('td')).toHaveText([expect.stringMatching(/^#\d+$/), `${rx.url}/walletd`, '*', 'yes', 'healthy']);
    await row.getByRole('link').click();
    await page.getByTestId('webhook-facts').waitFor();

    // An event: delivered, signed with the secret the page showed, and the log says HTTP 200.
    const first = await recordDeposit(t.db, s.companyId, walletId);
    await dispatchUntil(async () => rx.requests.length >= 1);
    const [got] = rx.requests;
    expect(JSON.parse(got!.rawBody).id).toBe(first.envelope.id);
    expect(signatureChecks(got!, secret)).toEqual(GENUINE);
    const log = page.getByTestId('deliveries');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await log.locator('tr', { hasText: 'HTTP 200' }).waitFor();
    await expect(log.locator('tbody tr').first().locator('td').nth(2)).toHaveText('delivered');

    // The receiver breaks: five attempts fail, the delivery ends failed, the endpoint is backed off.
    rx.respond((_r, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance');
    });
    const second = await recordDeposit(t.db, s.companyId, walletId);
    await dispatchUntil(async () => (await t.db('webhook_deliveries').where({ event_id: second.envelope.id }).first()).status === 'failed');
    await page.reload();
    await expect(page.getByTestId('webhook-health')).toHaveText(/^5 failures in a row, backed off until /);
    const failed = log.locator('tbody tr', { hasText: 'failed' });
    await failed.waitFor();
    await expect(failed.locator('td')).toHaveText([
      expect.stringMatching(/^#\d+$/),
      `deposit.confirmed${second.envelope.id}`,
      'failed',
      'HTTP 503',
      '5',
      expect.any(String),
      'Redeliver',
    ]);
    await failed.getByRole('button', { name: /^#/ }).click();
    await expect(page.getByTestId('delivery-response')).toHaveText('down for maintenance');
    await expect(page.getByTestId('delivery-payload')).toContainText(second.envelope.id);
    mkdirSync(DOCS, { recursive: true });
    await page.screenshot({ path: join(DOCS, 'console-webhooks.png'), fullPage: true });

    // Fixed; redeliver from the page. The endpoint's back-off ends by the database's clock, after
    // which the dispatcher's probe sends the same event again.
    rx.respond((_r, res) => {
      res.writeHead(200).end('ok');
    });
    const before = rx.requests.length;
    await failed.getByRole('button', { name: 'Redeliver' }).click();
    await expect(page.getByTestId('deliveries-notice')).toHaveText(new RegExp(`^Queued delivery #\\d+ of event ${second.envelope.id}\\.$`));
    await dispatchUntil(async () => rx.requests.length > before, 40_000);
    const again = rx.requests[before]!;
    expect(JSON.parse(again.rawBody).id).toBe(second.envelope.id);
    expect(again.headers['webhook-id']).toBe(second.envelope.id);
    expect(signatureChecks(again, secret)).toEqual(GENUINE);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await log.locator('tbody tr').first().filter({ hasText: 'HTTP 200' }).waitFor();
    await expect(log.locator('tbody tr').first().locator('td').nth(2)).toHaveText('delivered');

    const audited = await t.db('audit_log').where({ company_id: s.companyId }).andWhere('action', 'like', 'webhook.%').pluck('action');
    expect(audited).toEqual(['webhook.created', 'webhook.redelivered']);

    // A viewer of the same company is told the role may not manage webhooks; no form, no list.
    const viewer = await onboardMember(con, t.db, { companyId: s.companyId, email: 'viewer@acme.test', role: 'viewer' });
    const viewerPage = await signIn(viewer);
    await viewerPage.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await expect(viewerPage.getByTestId('webhooks-refused')).toHaveText(
      'Your role (viewer) may not manage webhooks; owners, admins and developers may.',
    );
    await expect(viewerPage.getByRole('button', { name: 'Create webhook' })).toHaveCount(0);
  }, 120_000);
});
