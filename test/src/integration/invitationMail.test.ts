import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@walletd/core';
import { startDevnetMailbox, readInbox } from '@walletd/server';
import {
  type ConsoleServer,
  type Seeded,
  type TestDatabase,
  createTestDatabase,
  freePort,
  onboardMember,
  runWalletdAsync,
  seedCompany,
  signUpWithLink,
  startConsole,
} from '@walletd/test-harness';

/**
 * Issue 42 §3: invitations go to the invitee, not through the inviter. The console mails the link
 * through a real SMTP server (the devnet's catch-all: smtp-server + mailparser), the inviter's
 * answer never holds it, and the mailed link works. Without a transport the link is shown with a
 * warning.
 */
describe('invitation and reset links by mail', () => {
  let t: TestDatabase;
  let con: ConsoleServer;
  let bare: ConsoleServer;
  let s: Seeded;
  let mailbox: Awaited<ReturnType<typeof startDevnetMailbox>>;
  const dataDir = mkdtempSync(join(tmpdir(), 'walletd-mail-'));
  let owner: Awaited<ReturnType<typeof onboardMember>>;

  beforeAll(async () => {
    t = await createTestDatabase();
    mailbox = await startDevnetMailbox(dataDir, await freePort(), createLogger({ level: 'silent' }));
    const smtp = { host: '127.0.0.1', port: mailbox.port, secure: false, user: null, passwordFile: null };
    con = await startConsole(t.db, { mail: { smtp, from: 'walletd <walletd@acme.test>' } });
    bare = await startConsole(t.db);
    s = await seedCompany(t.db);
    owner = await onboardMember(con, t.db, { companyId: s.companyId, email: `owner-${s.companyId}@example.com`, role: 'owner' });
  });
  afterAll(async () => {
    await con.close();
    await bare.close();
    await mailbox.stop();
    await t.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const stepUp = async () =>
    expect((await owner.b.call('POST', '/console/api/step-up', { body: { code: owner.code() } })).status).toBe(200);
  const linkIn = (text: string) => (text.match(/http:\/\/127\.0\.0\.1:\d+\/console\/links\/([\w-]+)/) as RegExpMatchArray)[1] as string;

  it('mails the invitation to the invitee: the inviter never sees the link, and the mailed link works', async () => {
    await stepUp();
    const inv = await owner.b.call('POST', '/console/api/members', { body: { email: 'ada@acme.test', role: 'admin' } });
    expect(inv.status).toBe(201);
    expect(inv.body).toMatchObject({ purpose: 'invitation', mailedTo: 'ada@acme.test', member: { email: 'ada@acme.test' } });
    expect(inv.body.url).toBeUndefined();
    const [mail] = readInbox(dataDir);
    expect(mail).toMatchObject({ to: ['ada@acme.test'], from: expect.stringContaining('walletd@acme.test') });
    expect(mail?.subject).toMatch(/invited to Acme/);
    const token = linkIn(mail?.text ?? '');
    expect(JSON.stringify(inv.body)).not.toContain(token);
    const ada = await signUpWithLink(con, token, 'ada@acme.test');
    expect((await ada.b.call('GET', '/console/api/me')).body).toMatchObject({ email: 'ada@acme.test', role: 'admin' });
    const audit = await t
      .db('audit_log')
      .where({ action: 'member.invited', target_id: String(inv.body.member.id) })
      .first();
    expect(audit.details).toMatchObject({ delivery: 'mail' });
    expect(JSON.stringify(audit)).not.toContain(token);

    // A reset link goes the same way.
    await stepUp();
    const reset = await owner.b.call('POST', `/console/api/members/${inv.body.member.id}/reset-link`);
    expect(reset.body).toMatchObject({ purpose: 'password_reset', mailedTo: 'ada@acme.test' });
    expect(reset.body.url).toBeUndefined();
    expect(readInbox(dataDir)[0]?.subject).toMatch(/Reset your Acme/);

    // The devnet's inbox, as docs/guide/console.md shows it: `walletd dev inbox`.
    const cli = await runWalletdAsync(['dev', 'inbox', '--last'], { WALLETD_DATA_DIR: dataDir });
    expect(cli.status).toBe(0);
    expect(cli.json).toMatchObject({ to: ['ada@acme.test'], subject: expect.stringMatching(/Reset your Acme/) });
  });

  it('without a mail transport shows the link to the inviter, with a warning', async () => {
    const b = await onboardMember(bare, t.db, { companyId: s.companyId, email: `owner2-${s.companyId}@example.com`, role: 'owner' });
    const inv = await b.b.call('POST', '/console/api/members', { body: { email: 'bob@acme.test', role: 'developer' } });
    expect(inv.status).toBe(201);
    expect(inv.body.url).toMatch(/\/console\/links\/[\w-]+$/);
    expect(inv.body.warning).toMatch(/no mail transport is configured/);
    expect(inv.body.mailedTo).toBeUndefined();
  });

  it('a relay that does not answer is 503 and names neither the link nor a password', async () => {
    const down = await startConsole(t.db, {
      mail: {
        smtp: { host: '127.0.0.1', port: await freePort(), secure: false, user: null, passwordFile: null },
        from: 'walletd <w@acme.test>',
      },
    });
    try {
      const m = await onboardMember(down, t.db, { companyId: s.companyId, email: `owner3-${s.companyId}@example.com`, role: 'owner' });
      const inv = await m.b.call('POST', '/console/api/members', { body: { email: 'carl@acme.test', role: 'viewer' } });
      expect(inv.status).toBe(503);
      expect(inv.body).toMatchObject({ code: 'unavailable' });
      expect(inv.body.message).toMatch(/could not be sent/);
      expect(JSON.stringify(inv.body)).not.toMatch(/links\//);
    } finally {
      await down.close();
    }
  });
});
