import type { Knex } from 'knex';
import type { ChainKey } from '../../types';

interface WindowBlock {
  number: bigint;
  hash: string;
  parentHash: string;
}

/**
 * The end of every catch-up write, one statement (a catching-up follower pays each round trip
 * once per group of blocks, and empty blocks are nothing else): the blocks enter the recent
 * window, what fell out of the window leaves it, the cursor moves to `cursorTo`.
 *
 * One statement sees one snapshot, so the rows it inserts and the rows it deletes must not meet:
 * blocks already below the window's floor are not inserted (only a group longer than the window
 * has any), and the delete only reaches rows below the floor.
 */
export async function recordWindow(
  trx: Knex.Transaction,
  k: ChainKey,
  blocks: readonly WindowBlock[],
  window: number,
  cursorTo: bigint,
  cursorHash: string,
): Promise<void> {
  const last = blocks[blocks.length - 1];
  if (!last) return;
  const floor = last.number - BigInt(window);
  const kept = blocks.filter((b) => b.number > floor);
  await trx.raw(
    `with added as (
       insert into recent_blocks (chain, network, height, hash, parent_hash)
       select ?, ?, u.height, u.hash, u.parent_hash
         from unnest(?::bigint[], ?::text[], ?::text[]) as u(height, hash, parent_hash)
       on conflict (chain, network, height) do update set hash = excluded.hash, parent_hash = excluded.parent_hash
     ), dropped as (
       delete from recent_blocks where chain = ? and network = ? and height <= ?
     )
     insert into chain_cursors (chain, network, height, hash, updated_at) values (?, ?, ?, ?, now())
     on conflict (chain, network) do update set height = excluded.height, hash = excluded.hash, updated_at = excluded.updated_at`,
    [
      k.chain,
      k.network,
      kept.map((b) => b.number.toString()),
      kept.map((b) => b.hash),
      kept.map((b) => b.parentHash),
      k.chain,
      k.network,
      floor.toString(),
      k.chain,
      k.network,
      cursorTo.toString(),
      cursorHash,
    ],
  );
}
