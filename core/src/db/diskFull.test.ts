import { writeFileSync } from 'node:fs';
import { createTestDatabase, type TestDatabase } from '@walletd/test-harness';
import pg from 'pg';
import { createDb } from './createDb';
import { diskFullMessage, isDiskFull } from './diskFull';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());

/** The error a real statement fails with: raised by the server itself with the given SQLSTATE and text. */
async function serverError(errcode: string, message: string): Promise<unknown> {
  const db = createDb({ url: t.url, poolMax: 1 });
  try {
    await db.raw(`do $$ begin raise exception using errcode = '${errcode}', message = '${message.replace(/'/g, "''")}'; end $$`);
  } catch (e) {
    return e;
  } finally {
    await db.destroy();
  }
  throw new Error('the statement did not fail');
}

describe('isDiskFull', () => {
  it("recognises PostgreSQL's 53100 disk_full, as knex reports it (the SQL before the server's message)", async () => {
    const err = await serverError('disk_full', 'could not extend file "base/16384/16385": wrote only 4096 of 8192 bytes at block 12');
    expect(err).toMatchObject({ code: '53100' });
    expect((err as Error).message).toMatch(/^do \$\$ begin raise/);
    expect(isDiskFull(err)).toBe(true);
  });

  it('recognises "No space left on device" in a server message without that SQLSTATE, and through a cause', async () => {
    const err = await serverError('XX000', 'could not write to file "pg_wal/xlogtemp.123": No space left on device');
    expect(err).toMatchObject({ code: 'XX000' });
    expect(isDiskFull(err)).toBe(true);
    expect(isDiskFull(new Error('embedded PostgreSQL did not start', { cause: err }))).toBe(true);
  });

  it("recognises Node's ENOSPC (walletd's own files)", () => {
    let err: unknown;
    try {
      writeFileSync('/dev/full', 'x');
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'ENOSPC' });
    expect(isDiskFull(err)).toBe(true);
  });

  it('does not take other failures for a full disk', async () => {
    const unique = await serverError('unique_violation', 'duplicate key value violates unique constraint "x"');
    expect(isDiskFull(unique)).toBe(false);
    const refused = await new pg.Client({ connectionString: 'postgres://x:y@127.0.0.1:1/z' }).connect().catch((e: unknown) => e);
    expect(isDiskFull(refused)).toBe(false);
    expect(isDiskFull(null)).toBe(false);
  });

  it('names the path in one line', () => {
    expect(diskFullMessage('/var/lib/walletd/pg')).toBe('disk full on /var/lib/walletd/pg');
  });
});
