import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@walletd/core';
import { keepFirstGenesis } from './devnetState';

const block = (number: number, timestamp: number) => ({
  header: { number: `0x${number.toString(16)}`, timestamp: `0x${timestamp.toString(16)}` },
});

describe('keepFirstGenesis', () => {
  const logger = createLogger({ level: 'silent' });
  const dir = mkdtempSync(join(tmpdir(), 'walletd-devnet-state-'));

  it("keeps the oldest block 0 of a dump (the chain's own genesis) and drops the copies later restarts re-created", () => {
    const file = join(dir, 'state.json');
    // The shape of anvil's dump after three starts: blocks in hash-map order, three genesis blocks.
    writeFileSync(
      file,
      JSON.stringify({ accounts: {}, blocks: [block(1, 101), block(0, 300), block(0, 100), block(2, 102), block(0, 200)] }),
    );
    expect(keepFirstGenesis(file, logger)).toBe(true);
    const kept = JSON.parse(readFileSync(file, 'utf8')) as { accounts: object; blocks: ReturnType<typeof block>[] };
    expect(kept.blocks).toEqual([block(1, 101), block(0, 100), block(2, 102)]);
    expect(kept.accounts).toEqual({});
  });

  it('reports a file that is not a readable dump, so the caller discards it', () => {
    const file = join(dir, 'truncated.json');
    writeFileSync(file, '{"blocks": [');
    expect(keepFirstGenesis(file, logger)).toBe(false);
  });
});
