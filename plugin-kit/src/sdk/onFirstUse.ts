/**
 * A chain SDK required when a verb first needs it, not when the plugin is loaded: `const xrpl =
 * onFirstUse(() => require('xrpl') as typeof import('xrpl'))`, then `xrpl().deriveAddress(…)`.
 *
 * Why: walletd loads every configured plugin at start, and most processes never touch most
 * chains' SDKs (an API process answering reads, a dispatcher). Loaded at start, the seven SDKs
 * were 35 MB of a 61 MB heap, and every full garbage collection walks the whole heap: 75 ms of CPU
 * each against 28–35 without them (bench/README.md, `api`, issue 48 §5). Keep type imports as
 * `import type`; only values go through the loader, so nothing of the SDK runs before a verb does.
 */
export function onFirstUse<T>(load: () => T): () => T {
  let loaded: { value: T } | undefined;
  return () => {
    loaded ??= { value: load() };
    return loaded.value;
  };
}
