import { litecoindAvailable } from '@walletd/devchains/dist/litecoind';

/**
 * `describe` for suites that need the node: skipped with a visible line when litecoind is missing,
 * unless WALLETD_REQUIRE_NODES is set (CI), where a missing node fails the run.
 */
export function describeWithLitecoind(name: string, fn: () => void): void {
  if (litecoindAvailable()) {
    describe(name, fn);
    return;
  }
  if (process.env.WALLETD_REQUIRE_NODES) throw new Error('litecoind is required (WALLETD_REQUIRE_NODES is set): apt-get install litecoind');
  process.stdout.write(`SKIPPED "${name}": litecoind is not installed (apt-get install litecoind)\n`);
  describe.skip(name, fn);
}
