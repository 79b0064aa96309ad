// Lints the built OpenAPI document with redocly's recommended rules and prints the problems as
// JSON (an empty array when clean); exits 1 when there is any. A script rather than an import in
// jest: @redocly/openapi-core is ESM-only, which jest's CommonJS runtime cannot load.
import { createRequire } from 'node:module';
import { createConfig, lintFromString } from '@redocly/openapi-core';

const { buildOpenApi } = createRequire(import.meta.url)('../dist/index.js');
const config = await createConfig({ extends: ['recommended'] });
const problems = await lintFromString({
  source: JSON.stringify(buildOpenApi('0.0.0', ['ethereum', 'bitcoin'])),
  absoluteRef: 'openapi.json',
  config,
});
const lines = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`);
process.stdout.write(`${JSON.stringify(lines)}\n`);
process.exitCode = lines.length ? 1 : 0;
