import type { Db } from '@walletd/core';
import { eventually } from './eventually';

/**
 * The events feed (`GET /v1/events`) once it lists every event the company has: the feed shows an
 * event only when no transaction older than it is still open anywhere in the PostgreSQL cluster
 * (`pg_snapshot_xmin`, so a consumer never skips one committed late), and the other suites of a
 * run share the cluster. `read` answers the feed's list; it is read until it is whole.
 */
export async function wholeFeed<T>(db: Db, companyId: number, read: () => Promise<T[]>): Promise<T[]> {
  const [{ n }] = (await db('events').where({ company_id: companyId }).count('* as n')) as [{ n: string }];
  const list = await eventually(read, (events) => events.length >= Number(n));
  if (list.length !== Number(n)) throw new Error(`the feed lists ${list.length} of the company's ${n} events`);
  return list;
}
