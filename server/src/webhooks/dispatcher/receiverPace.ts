/**
 * What this dispatcher saw of each receiver's speed (issue 43 §5). The per-webhook cap exists so
 * that a receiver that is slow or dead cannot hold the slots the others need; a receiver that
 * answers 2xx within SLOW_ATTEMPT_MS holds its slots for milliseconds, and capping it too made one
 * busy receiver's backlog drain in rounds of ten rows, the dispatcher idle more than half of the
 * time (`npm run bench -- outbox`, backlog x1: 0.45x of graphile-worker batched).
 *
 * A receiver counts as fast while its last attempt from this process answered 2xx within
 * SLOW_ATTEMPT_MS and none of its attempts in flight here has turned slow. A fast one may fill
 * every free slot: its cap is the hard bound on attempts in flight (4 x `concurrency`, which also
 * counts attempts that ended and wait to be recorded), so `concurrency` is what limits it; the
 * others keep the cap. A new receiver starts capped: a dead
 * one is never fast, from its first event. A fast one that dies turns slow after a second, which
 * drops it to the cap for the next claim, and its breaker takes it to one once attempts fail.
 * Only when `webhooks.maxInFlightPerWebhook` is unset: a cap the operator set protects their
 * receiver and always holds. What this process knows comes from its own attempts: when another
 * dispatcher's leases fill a receiver's cap, the claim still gives this one a single attempt to it
 * (migration 051), or a second dispatcher would never learn a busy receiver is fast.
 */
export const SLOW_ATTEMPT_MS = 1000;

export class ReceiverPace {
  private readonly lastFast = new Map<number, boolean>();
  private readonly slowInFlight = new Map<number, number>();
  private youngOthers = 0;

  /**
   * An attempt starts; the returned function is called once when it stops counting against
   * `concurrency` (it ended or turned slow). Attempts to receivers not known fast (new, slow or
   * dead ones) may hold half of `concurrency` together (`otherRoom`), even before any receiver is
   * known fast: receivers going dead together took every slot for their first second, and at a
   * start the healthy receiver, not yet known, waited that second out (issue 43 §1).
   */
  launched(webhookId: number): () => void {
    if (this.isFast(webhookId)) return () => {};
    this.youngOthers++;
    return () => {
      this.youngOthers--;
    };
  }

  /** How many more rows the next claim may take for receivers not known fast. */
  otherRoom(concurrency: number): number {
    return Math.max(0, Math.max(1, Math.floor(concurrency / 2)) - this.youngOthers);
  }

  /** One of the webhook's attempts in flight passed SLOW_ATTEMPT_MS. */
  turnedSlow(webhookId: number): void {
    this.slowInFlight.set(webhookId, (this.slowInFlight.get(webhookId) ?? 0) + 1);
  }

  /** An attempt ended: `answered` a 2xx, after `ms`; `wasSlow` if turnedSlow was called for it. */
  ended(webhookId: number, answered: boolean, ms: number, wasSlow: boolean): void {
    if (wasSlow) {
      const left = (this.slowInFlight.get(webhookId) ?? 1) - 1;
      if (left > 0) this.slowInFlight.set(webhookId, left);
      else this.slowInFlight.delete(webhookId);
    }
    // Only fast ones are kept: the map stays as small as the set the claim is sent.
    if (answered && ms < SLOW_ATTEMPT_MS) this.lastFast.set(webhookId, true);
    else this.lastFast.delete(webhookId);
  }

  /** The webhooks that are fast now (the claim gives them the larger cap). */
  fastIds(): number[] {
    const ids: number[] = [];
    for (const id of this.lastFast.keys()) if (!this.slowInFlight.has(id)) ids.push(id);
    return ids;
  }

  isFast(webhookId: number): boolean {
    return this.lastFast.get(webhookId) === true && !this.slowInFlight.has(webhookId);
  }
}
