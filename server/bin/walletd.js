#!/usr/bin/env node
// Committed shim so `npx walletd` links on a fresh clone before the TypeScript build exists.
try {
  require.resolve('../dist/cli/main.js');
} catch {
  process.stderr.write('walletd: not built yet; run `npm run build` (or `npm start`) first\n');
  process.exit(1);
}
require('../dist/cli/main.js');
