#!/usr/bin/env node
/**
 * `npm run new-plugin -- <chain> [--out <dir>]`: a new chain plugin from the litecoin example, to
 * be rewritten file by file (plugins/README.md, "A plugin from zero"). Copies
 * examples/plugin-litecoin (sources, tsconfig, package.json, README; no build output) to
 * examples/plugin-<chain> or <dir>, and renames what names the package and the chain: the package
 * `walletd-plugin-<chain>`, the plugin's `name`, and `CHAIN` in src/networks.ts. Everything else is
 * still litecoin's and says so: the checklist printed at the end is what to rewrite.
 */
const { cpSync, existsSync, readFileSync, writeFileSync } = require('node:fs');
const { join, resolve } = require('node:path');

const CHAIN_NAME = /^[a-z][a-z0-9-]{0,31}$/;
const TEMPLATE = join(__dirname, 'plugin-litecoin');

function main(argv) {
  const chain = argv[0];
  if (!chain || !CHAIN_NAME.test(chain)) {
    process.stderr.write(
      'usage: npm run new-plugin -- <chain> [--out <dir>]  (chain: lowercase letters, digits and "-", as walletd names it)\n',
    );
    return 2;
  }
  const at = argv.indexOf('--out');
  const out = resolve(at >= 0 && argv[at + 1] ? argv[at + 1] : join(__dirname, `plugin-${chain}`));
  if (existsSync(out)) {
    process.stderr.write(`${out} exists already; choose another --out\n`);
    return 1;
  }
  const pkg = `walletd-plugin-${chain}`;
  cpSync(TEMPLATE, out, {
    recursive: true,
    filter: (src) => !/[/\\](dist|node_modules)([/\\]|$)|\.tsbuildinfo$|\.tgz$/.test(src.slice(TEMPLATE.length)),
  });
  const edit = (file, pairs) => {
    const path = join(out, file);
    let text = readFileSync(path, 'utf8');
    for (const [from, to] of pairs) {
      if (!text.includes(from)) throw new Error(`${file} no longer contains ${JSON.stringify(from)}: update examples/new-plugin.js`);
      text = text.split(from).join(to);
    }
    writeFileSync(path, text);
  };
  edit('package.json', [
    ['"walletd-plugin-litecoin"', JSON.stringify(pkg)],
    ['Example walletd chain plugin for litecoin (native segwit)', `walletd chain plugin for ${chain}`],
  ]);
  // The shrinkwrap names the package too (the dependency tree stays: the new plugin starts from it).
  edit('npm-shrinkwrap.json', [['"walletd-plugin-litecoin"', JSON.stringify(pkg)]]);
  edit('src/index.ts', [["name: 'walletd-plugin-litecoin'", `name: '${pkg}'`]]);
  edit('src/networks.ts', [
    ["export const CHAIN = 'litecoin';", `export const CHAIN = '${chain}';`],
    ['`walletd-plugin-litecoin serves litecoin', `\`${pkg} serves ${chain}`],
  ]);
  edit('README.md', [['# walletd-plugin-litecoin', `# ${pkg} (from the walletd-plugin-litecoin template)`]]);
  process.stdout.write(
    [
      `${pkg} in ${out}. Still litecoin's, to rewrite for ${chain} (plugins/README.md, "A plugin from zero"):`,
      '  src/networks.ts        networks, native asset and decimals, confirmations, amount ceiling, capabilities',
      "  src/libs.ts            the libraries for your chain's keys, addresses and transactions (no crypto of your own):",
      '                         package.json dependencies, then npm install and npm shrinkwrap to pin their tree',
      '  src/addresses.ts       address forms (bech32 here); src/derive.ts the derivation path',
      '  src/readTransaction.ts the transaction reading glue (MWEB framing)',
      '  src/reader.ts          the node calls (head, fetchBlock, blockHash, getBalance, unspent coins)',
      '  src/detect.ts          the detect module the worker threads require: bytes in, transfers out',
      "  src/nodeRefusal.ts     the node's refusals at broadcast as typed errors (the kit's triageNodeError)",
      '  src/verbs/             confirm, build, sign, checkSigned, broadcast, verify: one verb per file (plugins/README.md, "The layout")',
      '  README.md              what the plugin serves and what it does not',
      `Then: cd ${out} && npm run build; run the conformance kit (@walletd/plugin-kit/testing) on your own node.`,
      '',
    ].join('\n'),
  );
  return 0;
}

process.exitCode = main(process.argv.slice(2));
