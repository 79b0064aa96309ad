import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

/**
 * The one plugin layout (plugins/README.md, "The layout"): every built-in plugin and the template a
 * chain team copies keep the same files under the same names, so a reader who knows one plugin
 * finds the detector, the node and each withdrawal verb of any other. Checked on the tree, so a
 * plugin added or reshaped another way fails here.
 */
const root = join(__dirname, '..', '..', '..');
const PLUGINS = ['evm', 'utxo', 'xrp', 'tron', 'solana', 'ton', 'polkadot'];
const PACKAGES = [...PLUGINS.map((p) => join('plugins', p)), join('examples', 'plugin-litecoin')];

/** The files every plugin has, by what they do. */
const REQUIRED = [
  'src/index.ts', // the package entry: createPlugin
  'src/networks.ts', // the chain as data
  'src/detect.ts', // the detect module the worker threads require
  'src/reader.ts', // createReader: the node
  'src/nodeRefusal.ts', // the node's refusals as typed errors
  'src/verbs/index.ts', // the withdrawal verbs assembled
  'src/verbs/build.ts',
  'src/verbs/sign.ts',
  'src/verbs/checkSigned.ts',
  'src/verbs/broadcast.ts',
  'src/verbs/verify.ts',
];
const VERBS = ['build', 'sign', 'checkSigned', 'broadcast', 'verify'];
/** A verb written out in place: a method (`async build(intent: …`) or a function named for it (`buildEvmWithdrawal(`), not a helper (`verifySignature`). */
const verbDefinition = (verb: string) =>
  new RegExp(`^\\s*(export\\s+)?(async\\s+)?(function\\s+)?${verb}(\\w*Withdrawal)?\\s*\\(\\s*\\w+\\s*:`, 'm');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe.each(PACKAGES)('%s has the one plugin layout', (pkg) => {
  const at = join(root, pkg);

  it('keeps the entry, the chain data, detect, reader, nodeRefusal and each withdrawal verb in its own file', () => {
    expect(REQUIRED.filter((f) => !existsSync(join(at, f)))).toEqual([]);
  });

  it('writes out no more than one verb per file (no withdrawals.ts holding them all)', () => {
    const files = sources(join(at, 'src'));
    expect(files.filter((f) => /(^|[/\\])withdrawals\.ts$/.test(f)).map((f) => relative(at, f))).toEqual([]);
    const crowded = files
      .map((f) => ({ f: relative(at, f), verbs: VERBS.filter((v) => verbDefinition(v).test(readFileSync(f, 'utf8'))) }))
      .filter(({ verbs }) => verbs.length > 1);
    expect(crowded).toEqual([]);
  });

  it('names each verb file after the verb it holds', () => {
    for (const verb of VERBS) expect(readFileSync(join(at, 'src', 'verbs', `${verb}.ts`), 'utf8')).toMatch(verbDefinition(verb));
  });
});

describe.each(PLUGINS)('the %s plugin', (plugin) => {
  it('has its conformance suite inside the plugin (test/<chain>.conformance.test.ts)', () => {
    expect(existsSync(join(root, 'plugins', plugin, 'test', `${plugin}.conformance.test.ts`))).toBe(true);
  });

  it('names src/detect its detect module, the file the worker threads require', () => {
    const mod = require(`@walletd/plugin-${plugin}`) as { createPlugin: () => { detectModule: string } };
    expect(relative(join(root, 'plugins', plugin), mod.createPlugin().detectModule)).toBe(join('dist', 'detect.js'));
  });
});

test('npm run new-plugin writes a plugin with the same layout', () => {
  const dir = mkdtempSync(join(tmpdir(), 'walletd-layout-'));
  try {
    const out = join(dir, 'plugin-dogelite');
    const r = spawnSync(process.execPath, [join(root, 'examples', 'new-plugin.js'), 'dogelite', '--out', out], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(REQUIRED.filter((f) => !existsSync(join(out, f)))).toEqual([]);
    expect(r.stdout).toContain('src/verbs/');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
