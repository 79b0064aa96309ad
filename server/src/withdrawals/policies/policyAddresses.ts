import { BaseError, type Chain, type PluginRegistry } from '@walletd/core';
import { refusePaddedAddress } from '../addressText';

export interface PolicyAddresses {
  /** The addresses as the operator gave them (shown in `policy list`). */
  addresses: string[];
  /** Every match form they take on the chains they are valid on: what the engine compares. */
  matchKeys: string[];
}

/**
 * Checks a deny/allow list with the plugins' own address validation, on `chain` (and `network`)
 * when given, else on every chain this build serves: a typo is refused when the policy is added,
 * not discovered when it fails to deny a payment. Destinations are compared in the chain's match
 * form (EVM lowercase hex, UTXO output script), so that form is stored beside the address.
 */
export function resolvePolicyAddresses(
  plugins: PluginRegistry,
  addresses: string[],
  scope: { chain?: string; network?: string } = {},
): PolicyAddresses {
  const targets = plugins
    .all()
    .flatMap((p) => p.chains.flatMap((c) => c.networks.map((n) => ({ plugin: p, chain: c.chain, network: n.network }))))
    .filter((t) => (scope.chain === undefined || t.chain === scope.chain) && (scope.network === undefined || t.network === scope.network));
  if (targets.length === 0) {
    throw new BaseError('validation_failed', `no chain plugin serves ${[scope.chain, scope.network].filter(Boolean).join('/')}`);
  }
  const matchKeys = new Set<string>();
  for (const address of addresses) {
    refusePaddedAddress(address, 'address');
    const valid = targets.filter((t) => t.plugin.validateAddress(t.chain as Chain, t.network, address));
    if (valid.length === 0) {
      const where = scope.chain ? [scope.chain, scope.network].filter(Boolean).join('/') : 'any chain this service supports';
      throw new BaseError('invalid_address', `"${address}" is not a valid address on ${where}`);
    }
    for (const t of valid) matchKeys.add(t.plugin.matchKey(t.chain as Chain, t.network, address).toLowerCase());
  }
  return { addresses, matchKeys: [...matchKeys] };
}
