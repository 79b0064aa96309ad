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

async function adminQuery(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl() });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

async function database(name: string, createSql: string, poolMax: number): Promise<TestDatabase> {
  await adminQuery(createSql);
  const url = adminUrl().replace(/\/postgres$/, `/${name}`);
  const db = createDb({ url, poolMax });
  return {
    url,
    db,
    drop: async () => {
      await db.destroy();
      await adminQuery(`drop database if exists ${name} with (force)`);
    },
  };
}

/** A fresh migrated database cloned from the run's template: each test file gets its own. */
export function createTestDatabase(): Promise<TestDatabase> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  return database(name, `create database ${name} template ${TEMPLATE_DB}`, 5);
}

/** An empty database (no migrations), for migration tests. */
export function createEmptyDatabase(): Promise<TestDatabase> {
  const name = `e_${randomBytes(6).toString('hex')}`;
  return database(name, `create database ${name}`, 2);
}
