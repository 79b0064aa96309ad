/**
 * The server's import rules (issue 44 §1): features (webhooks/, withdrawals/, sweeps/, funds/,
 * wallets/, members/, keys/, reconciliation/, company/) and the shared ground (platform/, http/)
 * are mounted by the composition roots (app.ts, consoleServer/) and driven by cli/, never the
 * other way round; the shared ground knows no feature; no import circle. Checked by
 * server/src/structure.test.ts; `npx depcruise --config server/.dependency-cruiser.cjs server/src` prints the same.
 */
const FEATURES = '^server/src/(webhooks|withdrawals|sweeps|funds|wallets|members|keys|reconciliation|company)/';
const GROUND = '^server/src/(platform|http)/';

module.exports = {
  forbidden: [
    {
      name: 'no-upward-to-roots',
      comment:
        'Nothing but the roots themselves imports the CLI or a composition root (app.ts, consoleServer/, index.ts): features, platform/, http/ and devnet/ never do.',
      severity: 'error',
      from: { path: '^server/src/', pathNot: ['^server/src/(cli/|app\\.ts$|index\\.ts$|consoleServer/)', '\\.test\\.ts$'] },
      to: { path: ['^server/src/cli/', '^server/src/app\\.ts$', '^server/src/consoleServer/', '^server/src/index\\.ts$'] },
    },
    {
      name: 'ground-knows-no-feature',
      comment: 'platform/ and http/ are shared ground: they never import a feature.',
      severity: 'error',
      from: { path: GROUND, pathNot: '\\.test\\.ts$' },
      to: { path: FEATURES },
    },
    {
      name: 'no-circular',
      comment: 'No import circle between files.',
      severity: 'error',
      from: { path: '^server/src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'server/tsconfig.json' },
  },
};
