import { databaseNowMs, setDatabaseClockOffset } from '@walletd/core';
import { createTestDatabase, onboardMember, seedCompany, startConsole, type TestDatabase } from '@walletd/test-harness';
import { systemClock } from '../../platform/clock';

let t: TestDatabase;
let con: Awaited<ReturnType<typeof startConsole>>;

beforeAll(async () => {
  t = await createTestDatabase();
  con = await startConsole(t.db);
});
afterAll(async () => {
  setDatabaseClockOffset(0);
  await con.close();
  await t.drop();
});

/**
 * Issue 43 §4: TOTP codes are checked against the database's clock as `serve` measures it (the
 * watch sets the offset, clockSkew.ts); beyond `clock.maxSkewMs` they are not checked at all, with
 * a clear 503 `clock_skew`, where a host clock 45 s off refused good codes as wrong.
 */
describe('TOTP and a host clock that lies', () => {
  it('the console clock is the database-corrected one', () => {
    setDatabaseClockOffset(600_000);
    try {
      expect(Math.abs(systemClock() - (Date.now() - 600_000))).toBeLessThan(1000);
      // One host instant for both reads: two reads of Date.now() may straddle a millisecond.
      const now = jest.spyOn(Date, 'now').mockReturnValue(Date.now());
      expect(systemClock()).toBe(databaseNowMs());
      now.mockRestore();
    } finally {
      setDatabaseClockOffset(0);
    }
  });

  it('refuses to check a code with 503 clock_skew while the clock is beyond the bound, and checks it again once within', async () => {
    const s = await seedCompany(t.db);
    const m = await onboardMember(con, t.db, { companyId: s.companyId, email: 'skew@example.com', role: 'owner' });
    expect((await m.b.call('DELETE', '/console/api/session')).status).toBe(204);
    setDatabaseClockOffset(45_000, false);
    try {
      const refused = await m.b.call('POST', '/console/api/session', { body: { email: m.email, password: m.password, code: m.code() } });
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ code: 'unavailable', reason: 'clock_skew' });
      expect(refused.body.message).toMatch(/clock is too far from the database's/);
    } finally {
      setDatabaseClockOffset(0);
    }
    const ok = await m.b.call('POST', '/console/api/session', { body: { email: m.email, password: m.password, code: m.code() } });
    expect(ok.status).toBe(201);
  });
});
