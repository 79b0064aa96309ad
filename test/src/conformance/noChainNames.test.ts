import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { SHIPPED_CHAINS } from '@walletd/test-harness';

/**
 * Issue 31 item 2, "done means": nothing in core, server, indexer or schemas names a chain; the
 * chains are the ones the loaded plugins declare. Scans the shipped source (not tests, not
 * comments; plugin package names such as `@walletd/plugin-tron` are not chain names) and fails
 * on a chain name outside the paths listed below, each with why it still names one. A listed path
 * that no longer names a chain fails too, so the list only shrinks.
 */
const ROOT = join(__dirname, '..', '..', '..');
const SCANNED = ['core/src', 'server/src', 'indexer/src', 'schemas/src', 'plugin-kit/src'];
const STILL_NAMED: Record<string, string> = {
  // Migrations are history: they fixed rows of a chain that existed when they ran.
  'core/src/db/migrations/013_polkadot_transfer_key.ts': 'a data migration of polkadot rows',
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'testing' ? [] : sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The code without comments and plugin package names (string contents stay: messages count). */
const code = (text: string) =>
  text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
    .replace(/@walletd\/plugin-[a-z]+/g, '');

const CHAIN_WORD = new RegExp(`\\b(${SHIPPED_CHAINS.join('|')})\\b`);

test('core, server, indexer, schemas and the kit name no chain outside the listed paths', () => {
  const found: Record<string, string> = {};
  for (const dir of SCANNED) {
    for (const file of sources(join(ROOT, dir))) {
      const lines = code(readFileSync(file, 'utf8')).split('\n');
      const hit = lines.findIndex((l) => CHAIN_WORD.test(l));
      if (hit >= 0) found[relative(ROOT, file)] = `${hit + 1}: ${lines[hit]?.trim()}`;
    }
  }
  const unexpected = Object.fromEntries(Object.entries(found).filter(([f]) => !(f in STILL_NAMED)));
  expect(unexpected).toEqual({});
  const cleared = Object.keys(STILL_NAMED).filter((f) => !(f in found));
  expect(cleared).toEqual([]);
});
