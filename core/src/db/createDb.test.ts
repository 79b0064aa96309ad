import { createTestDatabase, type TestDatabase } from '@walletd/test-harness';
import { readLimits } from './boundedReads';
import pg from 'pg';
import { checkStartupSettings, createDb } from './createDb';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());

const show = async (db: ReturnType<typeof createDb>, name: string) => (await db.raw(`show ${name}`)).rows[0][name] as string;

describe('createDb settings (the reads pool: readLimits)', () => {
  it('every connection starts with them', async () => {
    const db = createDb({ url: t.url, poolMax: 1, settings: readLimits(1234) });
    try {
      expect(await show(db, 'statement_timeout')).toBe('1234ms');
      expect(await show(db, 'default_transaction_read_only')).toBe('on');
    } finally {
      await db.destroy();
    }
  });

  it("keep holding when the URL brings its own `options` (pg lets the URL's replace the pool's)", async () => {
    const url = new URL(t.url);
    url.searchParams.set('options', '-c search_path=public,pg_catalog -c statement_timeout=0');
    const db = createDb({ url: url.toString(), poolMax: 1, settings: readLimits(1234) });
    try {
      expect(await show(db, 'search_path')).toBe('public,pg_catalog');
      expect(await show(db, 'statement_timeout')).toBe('1234ms');
      expect(await show(db, 'default_transaction_read_only')).toBe('on');
    } finally {
      await db.destroy();
    }
  });

  it('a connection on which they did not take is refused with what to do (a pooler that drops startup settings)', async () => {
    // A plain connection stands for one through PgBouncer that ignored `options`: the server's defaults.
    const plain = new pg.Client({ connectionString: t.url });
    await plain.connect();
    try {
      await expect(checkStartupSettings(plain, readLimits(1234))).rejects.toThrow(
        "database: the reads pool's connection settings did not take: statement_timeout=1234 (the server has 0), default_transaction_read_only=on (the server has off); a pooler such as PgBouncer drops them: set database.readLimitsAtConnect to false",
      );
      await plain.query('set statement_timeout = 1234; set default_transaction_read_only = on');
      await expect(checkStartupSettings(plain, readLimits(1234))).resolves.toBeUndefined();
    } finally {
      await plain.end();
    }
  });
});
