import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createDb, type Db } from '@walletd/core';

export interface TestDatabase {
  url: string;
  db: Db;
  drop(): Promise<void>;
}

const TEMPLATE_DB = 'walletd_template';

function adminUrl(): string {
  const url = process.env.WALLETD_TEST_PG_URL;
  if (!url) throw new Error('WALLETD_TEST_PG_URL is not set: run the tests with jest from the repository root (npm test)');
  return url.replace(/\/[^/]+$/, '/postgres');
}

/** A fresh migrated database cloned from the run's template: each test file gets its own. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    await admin.query(`create database ${name} template ${TEMPLATE_DB}`);
  } finally {
    await admin.end();
  }
  const url = adminUrl().replace(/\/postgres$/, `/${name}`);
  const db = createDb({ url, poolMax: 5 });
  return {
    url,
    db,
    drop: async () => {
      await db.destroy();
      const c = new pg.Client({ connectionString: adminUrl() });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** An empty database (no migrations), for migration tests. */
export async function createEmptyDatabase(): Promise<TestDatabase> {
  const name = `e_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = adminUrl().replace(/\/postgres$/, `/${name}`);
  const db = createDb({ url, poolMax: 2 });
  return {
    url,
    db,
    drop: async () => {
      await db.destroy();
      const c = new pg.Client({ connectionString: adminUrl() });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
