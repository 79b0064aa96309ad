import { createTestDatabase, type TestDatabase } from '@walletd/test-harness';
import { readLimits } from './boundedReads';
import { createDb } from './createDb';

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
});
