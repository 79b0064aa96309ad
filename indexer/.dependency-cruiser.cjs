/**
 * The indexer's stages (indexer/README.md) and the one direction imports may run between them.
 * detect, store and lease are the ground floor and know nothing of each other; follower uses all
 * three; service (the loops that run followers under a lease) uses everything. `types.ts` holds the
 * types more than one stage shares and imports no stage; `index.ts` is the package's face, imported
 * by none of them. Checked by `src/stages.test.ts` (dependency-cruiser's API); by hand:
 * `npx depcruise --config indexer/.dependency-cruiser.cjs indexer/src`.
 */
const STAGES = ['detect', 'store', 'lease', 'follower', 'service'];
/** What each stage may import besides itself and `types.ts`. */
const MAY_IMPORT = {
  detect: [],
  store: [],
  lease: [],
  follower: ['detect', 'store', 'lease'],
  service: ['detect', 'store', 'lease', 'follower'],
};

const forbidden = [
  {
    name: 'no-circular',
    comment: 'A circle makes two files one: move the type both need to types.ts, or the shared part to a file of its own.',
    severity: 'error',
    from: {},
    to: { circular: true },
  },
  {
    name: 'types-import-no-stage',
    comment: 'types.ts is the bottom of the indexer: the types shared by stages, depending on none.',
    severity: 'error',
    from: { path: '(^|/)src/types\\.ts$' },
    to: { path: `(^|/)src/(${STAGES.join('|')}|index\\.ts$)` },
  },
  {
    name: 'no-import-of-index',
    comment: 'index.ts is what other packages see; a stage imports the file it needs.',
    severity: 'error',
    from: { path: '(^|/)src/' },
    to: { path: '(^|/)src/index\\.ts$' },
  },
  ...STAGES.map((stage) => {
    const others = STAGES.filter((s) => s !== stage && !MAY_IMPORT[stage].includes(s));
    return {
      name: `stage-${stage}`,
      comment: `${stage}/ may import ${MAY_IMPORT[stage].length ? MAY_IMPORT[stage].join(', ') : 'no other stage'} (and types.ts): nothing upward or sideways.`,
      severity: 'error',
      from: { path: `(^|/)src/${stage}/` },
      to: { path: `(^|/)src/(${others.join('|')})/` },
    };
  }),
];

module.exports = {
  forbidden,
  STAGES,
  options: {
    // Type-only imports count: a circle of types is still two files that cannot be read apart.
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    includeOnly: '(^|/)src/',
    exclude: { path: '\\.test\\.ts$' },
  },
};
