import { spawnSync } from 'node:child_process';
import type { DetectResult } from '@walletd/core';
import { createTestDatabase, type TestDatabase, nativeAsset } from '@walletd/test-harness';
import { createChainLease, isDeadLocalHolder, LeaseLostError, localHolderId, persistBlock } from '@walletd/indexer';

const key = { chain: 'ethereum', network: 'devnet' };
const native = nativeAsset('ethereum', 'devnet');
const assets = new Map([[native.key, native]]);
const block = (n: bigint, hash: string, parent: string): DetectResult => ({
  block: { number: n, hash, parentHash: parent },
  transfers: [],
});

let t: TestDatabase;
beforeEach(async () => {
  t = await createTestDatabase();
});
afterEach(async () => {
  await t.drop();
});

/** Ends the current lease at once, as if its holder had stopped renewing it `leaseTtlMs` ago. */
const expire = () =>
  t
    .db('indexer_leases')
    .where(key)
    .update({ expires_at: t.db.raw(`now() - interval '1 second'`) });

describe('the indexer lease', () => {
  it('is not taken while live; a standby takes it once expired, and the old leader then writes no block', async () => {
    const first = createChainLease(t.db, key, 'host/a:1:aaaa', 60_000);
    const second = createChainLease(t.db, key, 'host/b:2:bbbb', 60_000);
    expect(await first.acquire()).toBe(true);
    expect(await second.acquire()).toBe(false);
    await persistBlock(t.db, key, block(1n, '0x01', '0x00'), assets, 64, 1n, true, first.fence);

    // The first leader pauses past its lease; the standby takes the chain with a new epoch.
    await expire();
    expect(await second.acquire()).toBe(true);
    expect(second.epoch()).toBe(2n);
    await expect(persistBlock(t.db, key, block(2n, '0x02', '0x01'), assets, 64, 2n, true, first.fence)).rejects.toBeInstanceOf(
      LeaseLostError,
    );
    expect(first.epoch()).toBeNull();
    expect(await t.db('chain_cursors').where(key).first('height', 'hash')).toEqual({ height: 1, hash: '0x01' });
    expect(await first.renew()).toBe(false);

    await persistBlock(t.db, key, block(2n, '0x02b', '0x01'), assets, 64, 2n, true, second.fence);
    expect(await t.db('chain_cursors').where(key).first('height', 'hash')).toEqual({ height: 2, hash: '0x02b' });
  });

  it('released on a stop, it is taken at once; a dead local holder’s lease too, a live one’s not', async () => {
    const leader = createChainLease(t.db, key, localHolderId(), 60_000, isDeadLocalHolder);
    const standby = createChainLease(t.db, key, localHolderId(), 60_000, isDeadLocalHolder);
    expect(await leader.acquire()).toBe(true);
    // Its holder id names this (live) process: the standby waits.
    expect(await standby.acquire()).toBe(false);
    await leader.release();
    expect(await standby.acquire()).toBe(true);

    // A holder on this machine whose process is gone (kill -9): taken without waiting for the expiry.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    const dead = localHolderId().replace(`:${process.pid}:`, `:${gone}:`);
    expect(isDeadLocalHolder(dead)).toBe(true);
    await t.db('indexer_leases').where(key).update({ holder: dead });
    const restarted = createChainLease(t.db, key, localHolderId(), 60_000, isDeadLocalHolder);
    expect(await restarted.acquire()).toBe(true);
    expect(restarted.epoch()).toBe(3n);
    // One on another machine is never presumed dead.
    expect(isDeadLocalHolder(`elsewhere/pid:[1]:${gone}:abcd`)).toBe(false);
  });
});
