import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFreeSpaceFloor, fileFreeBytes } from './freeSpaceFloor';

const MB = 1024 * 1024;

describe('createFreeSpaceFloor', () => {
  const dir = mkdtempSync(join(tmpdir(), 'walletd-floor-'));

  it("reads the real filesystem's free space with statfs", async () => {
    expect(await createFreeSpaceFloor({ path: dir, floorBytes: 1 }).shortage()).toBeNull();
    // No disk here has 2^52 bytes free.
    const huge = await createFreeSpaceFloor({ path: dir, floorBytes: 2 ** 52 }).shortage();
    expect(huge).toMatch(new RegExp(`^disk full on ${dir}: \\d+ MB free, below the floor of 4294967296 MB \\(database.minFreeBytes\\)$`));
  });

  it('says why below the floor, nothing at or above it, and re-reads after the cache time', async () => {
    const knob = join(dir, 'free');
    writeFileSync(knob, String(100 * MB));
    const floor = createFreeSpaceFloor({ path: '/data/pg', floorBytes: 512 * MB, freeBytes: fileFreeBytes(knob), cacheMs: 0 });
    expect(await floor.shortage()).toBe('disk full on /data/pg: 100 MB free, below the floor of 512 MB (database.minFreeBytes)');
    writeFileSync(knob, String(512 * MB));
    expect(await floor.shortage()).toBeNull();
  });

  it('never pauses on a guess: an unreadable free space or a floor of 0 is no shortage', async () => {
    const missing = createFreeSpaceFloor({ path: join(dir, 'nope'), floorBytes: 2 ** 52 });
    expect(await missing.shortage()).toBeNull();
    expect(await createFreeSpaceFloor({ path: dir, floorBytes: 0, freeBytes: async () => 0 }).shortage()).toBeNull();
  });
});
