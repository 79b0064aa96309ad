import type { ChainSettings, Logger } from '@walletd/core';
import type { Follower } from '../follower/follower';
import { ChainHaltedError } from '../lease/chainHalt';
import { type ChainLease, LeaseLostError } from '../lease/chainLease';
import type { NodeOutage } from './nodeOutage';

/** What the indexer service lends the withdrawal loop: its run flag, its log and its one wakeable sleep. */
export interface LeadingLoop {
  running: () => boolean;
  logger: Logger;
  sleep: (ms: number) => Promise<void>;
  /** Wakes every sleeping loop of the service (the follow loop sees the lost lease at once). */
  wakeAll: () => void;
}

/**
 * Withdrawal tracking while this process leads the chain: each round through the plugin's
 * `verify` (its writes fenced by the lease, as the follower's), every poll interval; a failing
 * round is retried with the same back-off as the follower's. Ends with the lead. Never rejects.
 */
export async function trackWithdrawalsWhileLeading(
  loop: LeadingLoop,
  settings: ChainSettings,
  follower: Follower,
  lease: ChainLease,
  outage: NodeOutage,
  /** The follower found the chain stopped: nothing is judged against that node until it resumes. */
  halted: () => boolean,
): Promise<void> {
  const { running, logger, sleep, wakeAll } = loop;
  const where = { chain: settings.chain, network: settings.network };
  const poll = settings.pollIntervalMs ?? 2000;
  let failures = 0;
  while (running() && lease.epoch() !== null) {
    let delay = poll;
    try {
      if (!halted()) {
        await follower.trackWithdrawals();
        outage.succeeded('withdrawals');
      }
      failures = 0;
    } catch (err) {
      if (err instanceof LeaseLostError || lease.epoch() === null) {
        wakeAll();
        break;
      }
      // The follower's loop records and reports a stopped chain; this one only waits for it.
      if (err instanceof ChainHaltedError) {
        await sleep(delay);
        continue;
      }
      failures++;
      delay = Math.min(poll * 2 ** failures, 30_000);
      if (!outage.failed('withdrawals', err)) logger.error({ err, ...where, failures }, 'withdrawal tracking round failed; retrying');
    }
    await sleep(delay);
  }
}
