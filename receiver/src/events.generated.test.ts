import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// In a child process: json-schema-to-typescript loads prettier, which cannot load inside jest's VM.
const SCRIPT = join(__dirname, '..', 'scripts', 'generate-types.js');

describe('events.generated.ts', () => {
  it('is what scripts/generate-types.js makes of the current schemas (else: npx tsc -b schemas && npm run generate -w receiver)', () => {
    const generated = execFileSync(process.execPath, [SCRIPT, '--stdout'], { encoding: 'utf8' });
    expect(readFileSync(join(__dirname, 'events.generated.ts'), 'utf8')).toBe(generated);
  });
});
