/** The Node.js versions walletd is built and tested on (the root package.json's `engines`). */
export const SUPPORTED_NODE = { major: 22, minor: 12, text: 'Node.js 22.12 or newer (24 is what CI runs)' } as const;

/**
 * The one line `serve` logs on an older Node.js, or null. A warning, not a refusal: walletd may
 * still run there, but nothing tests it (xrpl's ES-module-only dependencies need `require(esm)`,
 * Node 20.19+ at the least), so a failure on it should be read in that light.
 */
export function nodeVersionWarning(version: string = process.versions.node): string | null {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major > SUPPORTED_NODE.major || (major === SUPPORTED_NODE.major && minor >= SUPPORTED_NODE.minor)) return null;
  return `Node.js ${version} is not supported: walletd supports ${SUPPORTED_NODE.text}; upgrade Node.js before reporting a failure`;
}
