import { spawnSync } from 'node:child_process';
import { join, relative } from 'node:path';

/**
 * The stages rule (indexer/.dependency-cruiser.cjs, indexer/README.md): no import circle, no stage
 * importing upward or sideways, every shipped file in a stage. dependency-cruiser is ES modules
 * only, which jest's CommonJS runtime cannot load: its `cruise` runs in a child node. `INDEXER_SRC`
 * points the check at another tree (how it was shown failing on the flat layout it replaced).
 */
const indexerDir = join(__dirname, '..');
const srcDir = process.env.INDEXER_SRC ?? __dirname;
const config = join(indexerDir, '.dependency-cruiser.cjs');

const CRUISE = `
import { createRequire } from 'node:module';
import { cruise } from 'dependency-cruiser';
const [config, src] = process.argv.slice(1);
const { forbidden, options } = createRequire(import.meta.url)(config);
const result = await cruise([src], { ...options, validate: true, ruleSet: { forbidden } });
const out = result.output;
console.log(JSON.stringify({
  modules: out.modules.map((m) => m.source),
  violations: out.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to, cycle: v.cycle?.map((c) => c.name ?? c) })),
}));
`;

interface Cruised {
  modules: string[];
  violations: { rule: string; from: string; to: string; cycle?: string[] }[];
}

let cruised: Cruised;
beforeAll(() => {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', CRUISE, config, relative(process.cwd(), srcDir)], {
    encoding: 'utf8',
    cwd: process.cwd(),
  });
  if (run.status !== 0) throw new Error(`dependency-cruiser failed: ${run.stderr}`);
  cruised = JSON.parse(run.stdout) as Cruised;
}, 60_000);

test('dependency-cruiser read the indexer', () => {
  expect(cruised.modules.filter((m) => m.endsWith('index.ts')).length).toBeGreaterThan(0);
  expect(cruised.modules.length).toBeGreaterThan(20);
});

test('no import circle and no stage importing upward or sideways', () => {
  expect(cruised.violations).toEqual([]);
});

test('every shipped file sits in a stage (or is index.ts / types.ts)', () => {
  const { STAGES } = require(config) as { STAGES: string[] };
  const inStage = new RegExp(`(^|/)src/((${STAGES.join('|')})/[^/]|index\\.ts$|types\\.ts$)`);
  expect(cruised.modules.filter((m) => !inStage.test(m))).toEqual([]);
});
