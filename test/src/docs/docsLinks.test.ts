import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Every relative link and heading anchor a reader follows resolves: README.md, docs/**,
 * ARCHITECTURE.md, AGENTS.md, bench/README.md and the package READMEs (scripts/check-links.mjs,
 * remark-validate-links; an ES module, so run by plain Node). A moved page or a renamed heading
 * fails here instead of in a newcomer's browser.
 */
const ROOT = join(__dirname, '..', '..', '..');
const checkLinks = (...args: string[]) =>
  spawnSync(process.execPath, [join(ROOT, 'scripts', 'check-links.mjs'), ...args], { cwd: ROOT, encoding: 'utf8' });

describe('docs links', () => {
  it('every relative link and anchor of the docs resolves', () => {
    const run = checkLinks();
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  }, 120_000);

  it('a broken file link, a missing anchor in another page and one in the same page all fail', () => {
    const dir = mkdtempSync(join(tmpdir(), 'walletd-links-'));
    try {
      mkdirSync(join(dir, 'docs', 'guide'), { recursive: true });
      writeFileSync(join(dir, 'README.md'), '# R\n\n[the guide](docs/guide/page.md#there)\n');
      writeFileSync(
        join(dir, 'docs', 'guide', 'page.md'),
        '# Page\n\n## There\n\n[ok](#there) [gone](gone.md) [other](../../README.md#nowhere) [self](#nothere)\n',
      );
      const run = checkLinks('--root', dir);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('Cannot find file `gone.md`');
      expect(run.stderr).toContain('`#nowhere`');
      expect(run.stderr).toContain('`#nothere`');
      expect(run.stderr).not.toContain('#there`');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('README.md stays a front page: at most 250 lines, linking the devnet, approvals and deposit rules pages', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    expect(readme).toContain('### Try the whole loop on the devnet');
    for (const page of ['docs/guide/devnet.md', 'docs/guide/approvals.md', 'docs/guide/deposits.md']) expect(readme).toContain(`](${page}`);
  });
});
