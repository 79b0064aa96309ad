import type { ApiPromise } from '@polkadot/api';
import { BaseError } from '@walletd/core';

/**
 * Where a submitted extrinsic ended: the block that holds it and its dispatch result. A transfer
 * the pool accepts can still fail when its block executes it (a payment under the existential
 * deposit, more than the sender holds): the fee is taken and `system.ExtrinsicFailed` says why.
 * Chopsticks (`Instant`) builds the block as the extrinsic arrives; blocks from `from` on are
 * searched until `timeoutMs` passes.
 */
export async function extrinsicOutcome(
  api: ApiPromise,
  hash: string,
  from: number,
  timeoutMs = 30_000,
): Promise<{ block: number; failure: string | null }> {
  const until = Date.now() + timeoutMs;
  let next = from;
  for (;;) {
    const head = (await api.rpc.chain.getHeader()).number.toNumber();
    for (; next <= head; next++) {
      const blockHash = await api.rpc.chain.getBlockHash(next);
      const { block } = await api.rpc.chain.getBlock(blockHash);
      const index = block.extrinsics.findIndex((x) => x.hash.toHex() === hash);
      if (index < 0) continue;
      const events = await (await api.at(blockHash)).query.system.events();
      for (const { event, phase } of events) {
        if (!phase.isApplyExtrinsic || !phase.asApplyExtrinsic.eqn(index)) continue;
        if (api.events.system.ExtrinsicSuccess.is(event)) return { block: next, failure: null };
        if (api.events.system.ExtrinsicFailed.is(event)) {
          const error = event.data.dispatchError;
          if (!error.isModule) return { block: next, failure: error.toString() };
          const meta = api.registry.findMetaError(error.asModule);
          return { block: next, failure: `${meta.section}.${meta.name} (${meta.docs.join(' ').trim()})` };
        }
      }
      return { block: next, failure: 'no dispatch result among its block’s events' };
    }
    if (Date.now() > until)
      throw new BaseError('devchain_failed', `the transaction ${hash} was accepted but no block held it within ${timeoutMs / 1000} s`, {
        retriable: true,
      });
    await new Promise((r) => setTimeout(r, 200));
  }
}
