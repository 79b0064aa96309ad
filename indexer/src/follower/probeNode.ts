import { isNodeRefusal } from '@walletd/core';
import { ChainHaltedError } from '../lease/chainHalt';
import type { FollowerContext } from './followerContext';

/**
 * The reader's start-up check (`ChainReader.probe`: EVM call traces), once per follower until it
 * succeeds. A node that refuses what the configuration needs stops the chain (`traces_refused`:
 * `/readyz` names the chain and the refusal, one log line per stop) rather than let it advance past
 * deposits it cannot see; it is asked again with the stopped chain's back-off, so enabling the
 * method (or setting `internalTransfers: "off"` and restarting) resumes it. A node that does not
 * answer is a node error, retried like any.
 */
export async function probeNode(ctx: FollowerContext): Promise<void> {
  if (ctx.probed || !ctx.reader.probe) return;
  try {
    await ctx.reader.probe();
  } catch (err) {
    if (isNodeRefusal(err)) throw new ChainHaltedError(ctx.key, 'traces_refused', (err as Error).message);
    throw err;
  }
  ctx.probed = true;
}
