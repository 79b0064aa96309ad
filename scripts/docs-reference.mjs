#!/usr/bin/env node
/**
 * `npm run docs`: writes docs/reference/ from the built packages (run `npm run build` first), so
 * the reference says what the code does: the API from the OpenAPI document, the error codes, the
 * events and the configuration keys. `--check` writes nothing and exits 1 naming each page that
 * differs from what the code makes now (test/src/docs/referencePages.test.ts runs it);
 * `--dir DIR` reads or writes the pages under DIR instead of docs/reference.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiPage } from './docs/apiPage.mjs';
import { configPage } from './docs/configPage.mjs';
import { errorsPage } from './docs/errorsPage.mjs';
import { eventsPage } from './docs/eventsPage.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));

/** The pages, by file name, from the packages' dist (what a deployment runs). */
export function referencePages() {
  const schemas = require('@walletd/schemas');
  const core = require('@walletd/core');
  const kit = require('@walletd/plugin-kit');
  // The served document lists the loaded plugins' chains; the page shows the field's form only.
  const doc = schemas.buildOpenApi('reference', []);
  return {
    'api.md': apiPage(doc),
    'errors.md': errorsPage(kit.ERROR_STATUS, kit.REASON_PHRASES),
    'events.md': eventsPage({ ...schemas, EVENT_TYPES: core.EVENT_TYPES, OPT_IN_EVENT_TYPES: core.OPT_IN_EVENT_TYPES }),
    'configuration.md': configPage(core.configSchema, core.DEFAULT_CONFIG),
  };
}

function main(argv) {
  const check = argv.includes('--check');
  const at = argv.indexOf('--dir');
  const dir = at >= 0 ? argv[at + 1] : join(root, 'docs', 'reference');
  const stale = [];
  for (const [name, text] of Object.entries(referencePages())) {
    const file = join(dir, name);
    const now = existsSync(file) ? readFileSync(file, 'utf8') : null;
    if (now === text) continue;
    if (check) stale.push(relative(process.cwd(), file));
    else {
      mkdirSync(dir, { recursive: true });
      writeFileSync(file, text);
      process.stdout.write(`wrote ${relative(process.cwd(), file)}\n`);
    }
  }
  if (stale.length) {
    process.stderr.write(`stale generated pages (run \`npm run build && npm run docs\` and commit them): ${stale.join(', ')}\n`);
    process.exit(1);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
