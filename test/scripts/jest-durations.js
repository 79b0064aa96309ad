#!/usr/bin/env node
// Writes test/jest/durations.json (seconds per test file, slowest first) from a `jest --json
// --outputFile=FILE` result, for test/jest/durationSequencer.js. Rerun after a full run when files
// were added or got much slower or faster: only the order matters, not the exact figures.
const { readFileSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const file = process.argv[2];
if (!file) {
  console.error('usage: node test/scripts/jest-durations.js <jest --json output>');
  process.exit(2);
}
const root = join(__dirname, '..', '..');
const { testResults } = JSON.parse(readFileSync(file, 'utf8'));
const rows = testResults
  .map((r) => [relative(root, r.name).split('\\').join('/'), Math.round((r.endTime - r.startTime) / 100) / 10])
  .sort((a, b) => b[1] - a[1]);
writeFileSync(join(root, 'test', 'jest', 'durations.json'), `${JSON.stringify(Object.fromEntries(rows), null, 1)}\n`);
console.log(`${rows.length} files written to test/jest/durations.json`);
