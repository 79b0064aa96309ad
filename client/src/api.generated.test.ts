import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// In a child process: openapi-typescript is an ES module and the generator reads the built packages.
const SCRIPT = join(__dirname, '..', 'scripts', 'generate-api.js');

describe('api.generated.ts', () => {
  it("is what scripts/generate-api.js makes of walletd's current OpenAPI document (else: npm run build && npm run generate -w client)", () => {
    const generated = execFileSync(process.execPath, [SCRIPT, '--stdout'], { encoding: 'utf8' });
    expect(readFileSync(join(__dirname, 'api.generated.ts'), 'utf8')).toBe(generated);
  });
});
