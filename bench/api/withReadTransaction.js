/**
 * `BENCH_COMPARE=bench/api/withReadTransaction.js npm run bench -- api` (or a variant of `api-ab`):
 * this build's walletd with `database.readLimitsAtConnect: false`, each history read in a
 * read-only transaction as before issue 34 (and as behind PgBouncer), written into a copy of the
 * bench's config, so the two read paths are compared in one run.
 */
const fs = require('node:fs');
const { join } = require('node:path');

const i = process.argv.indexOf('--config');
const config = JSON.parse(fs.readFileSync(process.argv[i + 1], 'utf8'));
config.database = { ...(config.database ?? {}), readLimitsAtConnect: false };
const copy = `${process.argv[i + 1]}.read-transaction.json`;
fs.writeFileSync(copy, JSON.stringify(config));
process.argv[i + 1] = copy;
require(join(__dirname, '../../server/dist/cli/main.js'));
