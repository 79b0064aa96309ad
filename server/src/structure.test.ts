import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The shape issue 44 §1 gave server/src: features and the shared ground never import the CLI or a
 * composition root, platform/ and http/ never import a feature, no import circle (the rules:
 * server/.dependency-cruiser.cjs), and no shipped file over 300 lines. dependency-cruiser is an ES
 * module that jest's CommonJS runtime cannot load, so its CLI runs in a child process (JSON out).
 */
const ROOT = join(__dirname, '..', '..');
const SRC = join(ROOT, 'server', 'src');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
  cycle?: { name: string }[];
}

test('no import in server/src breaks the rules of .dependency-cruiser.cjs', () => {
  const bin = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs');
  let out: string;
  try {
    out = execFileSync(process.execPath, [bin, '--config', 'server/.dependency-cruiser.cjs', '--output-type', 'json', 'server/src'], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (e) {
    // Exit status 1+ when a rule is broken; the JSON report is still on stdout.
    out = (e as { stdout?: string }).stdout ?? '';
    if (!out) throw e;
  }
  const report = JSON.parse(out) as { summary: { violations: Violation[]; totalCruised: number } };
  expect(report.summary.totalCruised).toBeGreaterThan(200);
  const broken = report.summary.violations.map((v) =>
    v.cycle ? `${v.rule.name}: ${v.from} → ${v.cycle.map((c) => c.name).join(' → ')}` : `${v.rule.name}: ${v.from} → ${v.to}`,
  );
  expect(broken).toEqual([]);
});

test('no shipped file in server/src is over 300 lines', () => {
  const long: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) {
        const lines = readFileSync(p, 'utf8').split('\n').length - 1;
        if (lines > 300) long.push(`${relative(SRC, p)}: ${lines}`);
      }
    }
  };
  walk(SRC);
  expect(long).toEqual([]);
});
