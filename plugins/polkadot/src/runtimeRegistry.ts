import type { TypeRegistry } from '@polkadot/types';
import { polkadotTypes } from './sdk';

/**
 * A type registry per runtime, keyed by the frame's `metadataKey` (spec name, version and a hash
 * of the metadata bytes): decoding ~0.5 MB of metadata costs far more than a block, so each
 * process (each worker) does it once per runtime. A few runtimes are kept (an upgrade mid-chain
 * needs two at once); the cache only memoises a pure function of its key.
 */
const MAX_RUNTIMES = 4;
const registries = new Map<string, TypeRegistry>();

export function registryFor(key: string, metadata: Uint8Array | string): TypeRegistry {
  let registry = registries.get(key);
  if (registry) return registry;
  registry = new (polkadotTypes().TypeRegistry)();
  registry.setMetadata(new (polkadotTypes().Metadata)(registry, metadata as Uint8Array));
  if (registries.size >= MAX_RUNTIMES) registries.delete(registries.keys().next().value as string);
  registries.set(key, registry);
  return registry;
}
