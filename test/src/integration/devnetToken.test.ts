import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The devnet token's committed bytecode must be what its source compiles to (no silent drift). */
describe('devnet token artifact', () => {
  it('matches test/contracts/TestToken.sol compiled now', () => {
    const { compileTestToken, TARGET } = require('../../scripts/compile-devnet-token.js') as {
      compileTestToken(): unknown;
      TARGET: string;
    };
    expect(JSON.parse(readFileSync(TARGET, 'utf8'))).toEqual(compileTestToken());
    expect(TARGET).toBe(join(__dirname, '..', '..', '..', 'devchains', 'src', 'testToken.json'));
  });
});
