import type { TokenDefinition } from '@walletd/plugin-kit';

/**
 * `tokens.get(address.toLowerCase())`, the last answer kept: a busy block's logs come in runs of
 * one contract (400 of one `batchTransfer`), each lowercased and looked up again before.
 */
export function lastTokenLookup(tokens: ReadonlyMap<string, TokenDefinition>): (address: string) => TokenDefinition | undefined {
  let last: string | null = null;
  let token: TokenDefinition | undefined;
  return (address) => {
    if (address !== last) {
      last = address;
      token = tokens.get(address.toLowerCase());
    }
    return token;
  };
}
