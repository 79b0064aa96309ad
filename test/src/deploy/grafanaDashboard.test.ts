import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';

/**
 * Issue 48 §4: deploy/grafana/walletd.json reads only metrics walletd serves, and every panel's
 * query is valid PromQL (promtool check rules over the queries as recording rules; skipped
 * without promtool, failing under WALLETD_REQUIRE_NODES). Grafana itself did not load it here.
 */
const ROOT = join(__dirname, '..', '..', '..');
type Panel = { type: string; title: string; targets?: { expr: string }[] };
const dashboard = JSON.parse(readFileSync(join(ROOT, 'deploy', 'grafana', 'walletd.json'), 'utf8')) as { panels: Panel[] };
const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
const hasPromtool = spawnSync('promtool', ['--version']).status === 0;
if (!hasPromtool && process.env.WALLETD_REQUIRE_NODES) {
  throw new Error('promtool is required (WALLETD_REQUIRE_NODES is set): apt-get install prometheus');
}

describe('deploy/grafana/walletd.json', () => {
  it('queries only metrics walletd declares (or Node process metrics under its prefix)', () => {
    const declared = new Set(
      [...readFileSync(join(ROOT, 'core', 'src', 'metrics', 'metrics.ts'), 'utf8').matchAll(/name: '(walletd_[a-z_]+)'/g)].map((m) => m[1]),
    );
    const used = new Set(exprs.flatMap((e) => e.match(/walletd_[a-z_]+/g) ?? []).map((n) => n.replace(/_(bucket|sum|count)$/, '')));
    expect(exprs.length).toBeGreaterThan(15);
    expect([...used].filter((n) => !declared.has(n) && !/^walletd_(process|nodejs)_/.test(n))).toEqual([]);
  });

  (hasPromtool ? it : it.skip)('every query is valid PromQL (promtool check rules)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'walletd-dashboard-'));
    try {
      const rules = { groups: [{ name: 'dashboard', rules: exprs.map((expr, i) => ({ record: `walletd_dashboard:query_${i}`, expr })) }] };
      writeFileSync(join(dir, 'queries.yaml'), stringify(rules));
      const r = spawnSync('promtool', ['check', 'rules', join(dir, 'queries.yaml')], { encoding: 'utf8' });
      expect(`${r.stdout}${r.stderr}`).toContain(`SUCCESS: ${exprs.length} rules found`);
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
