import {
  Browser,
  createTestDatabase,
  eventually,
  onboardMember,
  seedCompany,
  startConsole,
  type TestDatabase,
} from '@walletd/test-harness';

let t: TestDatabase;
let con: Awaited<ReturnType<typeof startConsole>>;

beforeAll(async () => {
  t = await createTestDatabase();
  con = await startConsole(t.db);
});
afterAll(async () => {
  await con.close();
  await t.drop();
});

/** Every way a log or audit row could carry the token: as is, encoded, changed in case. */
const spellings = (token: string): string[] => [
  token,
  token.toLowerCase(),
  token.toUpperCase(),
  encodeURIComponent(token),
  [...token].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  Buffer.from(token).toString('base64'),
  Buffer.from(token).toString('base64url'),
  Buffer.from(token).toString('hex'),
];

describe('one-time link tokens (issue 42 §1)', () => {
  it('appear in no log line and no audit row through a whole invitation: page load, refused password, acceptance', async () => {
    const s = await seedCompany(t.db);
    const owner = await onboardMember(con, t.db, { companyId: s.companyId, email: 'owner-redact@example.com', role: 'owner' });
    const invited = await owner.b.call('POST', '/console/api/members', { body: { email: 'admin-redact@example.com', role: 'admin' } });
    expect(invited.status).toBe(201);
    const url = new URL(invited.body.url as string);
    const token = url.pathname.split('/').pop() as string;
    expect(token.length).toBeGreaterThan(20);

    const invitee = new Browser(con.url);
    const from = con.logs.length; // the owner's own invitation was accepted above
    const page = await fetch(`${con.url}/console/links/${token}`);
    expect(page.status).toBe(200);
    // The same link as a tolerant router reads it: other case, a doubled slash.
    expect((await fetch(`${con.url}/Console//LINKS/${token}`)).status).toBe(200);
    const short = await invitee.call('POST', `/console/api/links/${token}`, { body: { password: 'short' } });
    expect(short.status).toBe(400);
    expect(short.body.code).toBe('validation_failed');
    const accepted = await invitee.call('POST', `/console/api/links/${token}`, { body: { password: 'correct horse battery staple' } });
    expect(accepted.status).toBe(200);

    // Four requests named a link (two page loads, two POSTs): wait for their lines.
    const linkLines = () => con.logs.slice(from).filter((l) => /"url":"\/console(\/api)?\/+links\//i.test(l));
    const lines = await eventually(
      async () => linkLines(),
      (l) => l.length >= 4,
    );
    expect(lines).toHaveLength(4);
    for (const l of lines) expect(l.toLowerCase()).toContain('/links/:token"');

    const audit = JSON.stringify(await t.db('audit_log').select());
    expect(audit).toContain('member.password_set');
    const everything = con.logs.join('\n');
    for (const spelled of spellings(token)) {
      expect(everything).not.toContain(spelled);
      expect(audit).not.toContain(spelled);
    }
  });
});
