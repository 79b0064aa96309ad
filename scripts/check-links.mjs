#!/usr/bin/env node
/**
 * Checks every relative link and heading anchor of the docs a reader navigates: README.md,
 * docs/**, ARCHITECTURE.md, AGENTS.md, bench/README.md (and its history/) and each package's README. Exits 1 with
 * each broken link (file, line, target) on stderr. `--root DIR` checks another tree (the test
 * proves the check fails on one with a broken link). Runs remark-validate-links through
 * unified-engine: only the engine's file set lets it check anchors in other files.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { remark } from 'remark';
import remarkValidateLinks from 'remark-validate-links';
import { engine } from 'unified-engine';

const SKIP = new Set(['node_modules', 'dist', '.git', '.walletd']);

/** The Markdown files checked, relative to `root`. */
export function docsFiles(root) {
  const files = ['README.md', 'ARCHITECTURE.md', 'AGENTS.md', 'bench/README.md'].filter((f) => existsSync(join(root, f)));
  const walk = (dir) => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (SKIP.has(e.name)) continue;
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.md')) files.push(rel);
    }
  };
  if (existsSync(join(root, 'docs'))) walk('docs');
  // The bench journal: its files link back to the suites' current figures.
  if (existsSync(join(root, 'bench', 'history'))) walk('bench/history');
  // Package READMEs: a workspace's, a plugin's, the example plugin's.
  for (const dir of ['.', 'plugins', 'examples']) {
    if (!existsSync(join(root, dir))) continue;
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (!e.isDirectory() || SKIP.has(e.name) || e.name === 'docs' || e.name === 'bench') continue;
      const readme = dir === '.' ? `${e.name}/README.md` : `${dir}/${e.name}/README.md`;
      if (existsSync(join(root, readme))) files.push(readme);
    }
  }
  return [...new Set(files)];
}

function main(argv) {
  const at = argv.indexOf('--root');
  const root = at >= 0 ? argv[at + 1] : join(dirname(fileURLToPath(import.meta.url)), '..');
  engine(
    {
      processor: remark(),
      cwd: root,
      files: docsFiles(root),
      plugins: [[remarkValidateLinks, { repository: false, root }]],
      silentlyIgnore: true,
      quiet: true,
      frail: true,
      color: false,
      ignoreName: '.remarkignore',
      out: false,
    },
    (error, code) => {
      if (error) {
        process.stderr.write(`${error.stack ?? error}\n`);
        process.exit(2);
      }
      process.exit(code);
    },
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
