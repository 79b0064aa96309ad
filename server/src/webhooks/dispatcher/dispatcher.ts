import { type Envelope, type Logger, type WebhookSettings, withRole } from '@walletd/core';
import type pg from 'pg';
import type { Common } from '../../platform/context';
import { DestinationPolicy } from '../destinationPolicy';
import { type Redactor, redactorFor } from '../secrets/redactSecrets';
import { siblingRedactors } from '../secrets/siblingSecrets';
import { openWebhookSecrets, type WebhookSecrets } from '../secrets/webhookSecrets';
import { type BackedOffSweep, startBackedOffSweep } from './backedOffDeliveries';
import { type DeliveryListener, listenForDeliveries } from './deliveryListener';
import { type AttemptOutcome, type Claimed, type ClaimedDelivery, claimDue, recordAttempts } from './deliveryStore';
import { reportBreakerChanges } from './breakerReport';
import { defaultInFlightPerWebhook } from './endpointBreaker';
import { HttpSender, type PostResult } from './httpSender';
import { outcomeRecorder } from './outcomeRecorder';
import { ReceiverPace, SLOW_ATTEMPT_MS } from './receiverPace';
import { startPartitionMaintenance } from './partitionMaintenance';
import { type DeliveryPruner, startDeliveryPruner } from './pruneDeliveries';
import { MAX_ATTEMPTS, backoffSeconds } from './retryPolicy';
import { sendDelivery } from './sendDelivery';
import { tracedAttempt } from './deliverySpan';

export interface Dispatcher {
  start(): void;
  /** Finishes the batch in flight, then stops. */
  stop(): Promise<void>;
  /** One claim-send-record round; returns how many deliveries it attempted. */
  runOnce(): Promise<number>;
}

/** Attempts in flight, slow ones included, never exceed this many times `concurrency`. */
const HARD_LIMIT_FACTOR = 4;
const BUSY_PAUSE_MS = 2; // after a claim that took nothing while work was due (a claim lasts a few ms)

export function createDispatcher(common: Common, settings: WebhookSettings = common.config.webhooks): Dispatcher {
  const { db } = common;
  const logger: Logger = withRole(common.logger, 'dispatcher');
  const policy = new DestinationPolicy(settings.allowCidrs);
  const sender = new HttpSender(policy, settings.timeoutMs, Math.max(4, Math.min(settings.concurrency, 128)));
  const claimSize = Math.min(settings.batchSize, settings.concurrency);
  // Per webhook, across every dispatcher (held in the claim): a receiver that never answers holds at most this many slots (issue 29).
  const perWebhook = Math.min(settings.maxInFlightPerWebhook ?? defaultInFlightPerWebhook(settings.concurrency), settings.concurrency);
  // A receiver answering fast may fill every free slot unless the operator set the cap (receiverPace.ts).
  const pace = new ReceiverPace();
  const fast = () => ({
    ids: pace.fastIds(),
    // The operator's cap holds for every receiver; without one a fast receiver may fill every free slot.
    cap: settings.maxInFlightPerWebhook === undefined ? settings.concurrency * HARD_LIMIT_FACTOR : perWebhook,
    otherRoom: pace.otherRoom(settings.concurrency),
  });
  // Keyed by the envelope's ciphertext (a fresh IV per seal, so a new secret is a new key), not `updated_at`: it has a
  // millisecond's precision, and a PATCH and a rotation within one would keep signing with the old secret. The redactor
  // (every encoding of every secret the webhook has had, compiled) is built with it, once per version, not per attempt.
  const secretCache = new Map<number, { sealed: string; secrets: WebhookSecrets; redact: Redactor }>();
  const siblingsFor = siblingRedactors(db, common.masterKey);

  const secretsFor = (d: ClaimedDelivery) => {
    const sealed = (d.secretEnvelope as Envelope).ct;
    const cached = secretCache.get(d.webhookId);
    if (cached && cached.sealed === sealed) return cached;
    const secrets = openWebhookSecrets(common.masterKey, d.webhookId, d.secretEnvelope);
    const entry = { sealed, secrets, redact: redactorFor(secrets) };
    secretCache.set(d.webhookId, entry);
    return entry;
  };

  const attempt = (d: ClaimedDelivery) => tracedAttempt(d, () => attemptOnce(d));
  async function attemptOnce(d: ClaimedDelivery): Promise<AttemptOutcome> {
    let redact: Redactor | undefined;
    let result: PostResult;
    try {
      const known = secretsFor(d);
      redact = known.redact;
      result = await sendDelivery(sender, settings.telegramApiBase, d, known.secrets, known.redact);
    } catch (e) {
      result = { ok: false, responseCode: null, responseBody: null, error: `internal: ${(e as Error).message}`, retryAfterSeconds: null };
    }
    const made = d.attempts + 1;
    // The company's other webhooks' secrets too (siblingSecrets.ts); the body may be a cut read. A
    // timeout's error is our own words, with nothing of the receiver's to search: no lookup (ten
    // receivers timing out together queued one each ahead of the next claim, issue 43 §1).
    const timedOut = result.responseCode === null && result.error?.startsWith('timeout after ');
    const heard = timedOut ? null : `${result.responseBody ?? ''}${result.error ?? ''}`;
    const others = await siblingsFor(d.webhookId, heard).catch(() => null);
    const clean = (s: string | null, cut = false) => {
      if (s === null || !redact) return s;
      const own = redact(s);
      return others ? others(own, cut) : own;
    };
    const outcome: AttemptOutcome = {
      id: d.id,
      webhookId: d.webhookId,
      leaseUs: d.leaseUs,
      ok: result.ok,
      responseCode: result.responseCode,
      responseBody: clean(result.responseBody, true),
      error: clean(result.error),
      retryInSeconds: Math.max(backoffSeconds(made, settings.retryBaseMs), result.retryAfterSeconds ?? 0),
    };
    common.metrics?.webhookAttempts.inc({ outcome: result.ok ? 'delivered' : made >= MAX_ATTEMPTS ? 'failed' : 'retry' });
    if (!result.ok) {
      const log = { webhookId: d.webhookId, deliveryId: d.id, attempt: made, error: outcome.error, responseCode: result.responseCode };
      if (made >= MAX_ATTEMPTS) logger.warn(log, 'delivery failed for good');
      else logger.info({ ...log, retryInSeconds: outcome.retryInSeconds }, 'delivery attempt failed');
    }
    return outcome;
  }

  /** Records a batch of outcomes and tells the operator about breakers that opened or closed. */
  async function record(outcomes: AttemptOutcome[]): Promise<void> {
    reportBreakerChanges(await recordAttempts(db, outcomes, settings.retryBaseMs), logger, common.metrics);
  }

  async function runOnce(): Promise<number> {
    const claimed = await claimDue(db, claimSize, settings.leaseMs, perWebhook, null, fast());
    if (claimed.length === 0) return 0;
    const outcomes = await Promise.all(
      claimed.map(async (d) => {
        const started = performance.now();
        const outcome = await attempt(d);
        pace.ended(d.webhookId, outcome.ok, performance.now() - started, false);
        return outcome;
      }),
    );
    await record(outcomes);
    return claimed.length;
  }

  let running = false;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  let listener: DeliveryListener | undefined;
  // Retention of final delivery rows runs beside the claims, on its own schedule (pruneDeliveries.ts).
  let pruner: DeliveryPruner | undefined;
  // The coming months' partitions of events and transfers (partitionMaintenance.ts).
  let partitions: { stop(): Promise<void> } | undefined;
  // Due deliveries of backed-off endpoints use up their attempts unsent (backedOffDeliveries.ts).
  let backedOff: BackedOffSweep | undefined;
  // Attempts in flight, and those of them younger than SLOW_ATTEMPT_MS: only the young ones fill
  // `concurrency`. An attempt to a receiver that does not answer stops counting after a second, so
  // receivers going dead together (each holding its per-webhook cap until the timeout, before a
  // breaker opens) cannot take every slot from the healthy ones, from the first event (issue 43).
  // The hard bound on sockets is HARD_LIMIT_FACTOR x `concurrency`.
  let inFlight = 0;
  let young = 0;
  // Set by a NOTIFY that arrives while we are busy, so it is not lost: the next claim runs at once.
  let notified = false;
  // A slot freed or an attempt recorded wakes the loop only when it waits for a slot, or the last claim
  // used up some webhook's room (`capped`: more may be due). Else a claim now would come back empty (half
  // of the paced rounds did, issue 43 §5): new work wakes it by NOTIFY, retries by the poll.
  let waitingForSlot = false;
  let capped = false;
  let busyPause = 0;
  // An attempt's end gives room only to its own webhook (and, if that one is not known fast, to the
  // others' share): a fast receiver's room is the hard bound, which the slot count already guards.
  // So after a `capped` claim only the end of an attempt to a receiver not known fast wakes the loop.
  // While dead receivers' probes hold their room of one, every claim answers `capped`, and each
  // healthy attempt's end and record woke a claim that took nothing: half of all claims beside 10
  // dead receivers in the outbox bench (bench/README.md, "Where the isolation tail is now").
  // A webhook under a cap: the operator's, or one not known fast (now: it may be capped next claim).
  const givesRoom = (webhookId: number) => settings.maxInFlightPerWebhook !== undefined || !pace.isFast(webhookId);
  // Attempts launched while their webhook was under a cap: their record frees room of it.
  const launchedCapped = new Set<number>();
  const slotFreed = (roomFreed: boolean) => {
    if (waitingForSlot || (capped && roomFreed)) wake?.();
  };
  // A slot is free again only once its outcome is stored (outcomeRecorder.ts).
  const recorder = outcomeRecorder(
    record,
    (batch) => {
      inFlight -= batch.length;
      let roomFreed = false;
      for (const o of batch) if (launchedCapped.delete(o.id) || givesRoom(o.webhookId)) roomFreed = true;
      slotFreed(roomFreed);
    },
    logger,
  );

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  /** Starts one attempt; it holds a slot of `concurrency` until it ends or turns slow. */
  function launch(d: ClaimedDelivery): void {
    inFlight++;
    young++;
    const heldRoom = givesRoom(d.webhookId);
    if (heldRoom) launchedCapped.add(d.id);
    const share = pace.launched(d.webhookId);
    let counted = true;
    const started = performance.now();
    const release = () => {
      if (!counted) return;
      counted = false;
      young--;
      share();
      slotFreed(heldRoom || givesRoom(d.webhookId));
    };
    const slow = setTimeout(() => {
      release();
      pace.turnedSlow(d.webhookId);
    }, SLOW_ATTEMPT_MS);
    void attempt(d).then((outcome) => {
      clearTimeout(slow);
      pace.ended(d.webhookId, outcome.ok, performance.now() - started, !counted);
      release();
      recorder.add(outcome);
    });
  }

  /**
   * Pipelined: up to `concurrency` attempts in flight; free slots are refilled by new claims as
   * soon as attempts finish. A slow receiver holds at most `perWebhook` of them, and a failing one
   * is backed off by the claim (endpointBreaker.ts), so it does not hold back the others.
   */
  async function run(): Promise<void> {
    // New deliveries wake us at once instead of at the next poll.
    listener = await listenForDeliveries(db.client.connectionSettings as pg.ClientConfig, logger, () => {
      notified = true;
      wake?.();
    });
    const { concurrency, batchSize, timeoutMs } = settings;
    logger.info({ concurrency, maxInFlightPerWebhook: perWebhook, batchSize, timeoutMs }, 'dispatcher started');
    // Claim when a useful batch of slots is free (or nothing is in flight), not for every slot.
    const minClaim = Math.max(1, Math.floor(Math.min(settings.batchSize, settings.concurrency) / 4));
    while (running) {
      const free = Math.min(settings.concurrency - young, settings.concurrency * HARD_LIMIT_FACTOR - inFlight);
      // Too few slots free; or a host clock too far from the database's, which would sign what
      // receivers refuse: deliveries wait (docs/operate/faults.md, "Clock skew").
      if ((free < minClaim && inFlight > 0) || common.databaseHealth?.clockSkew()) {
        waitingForSlot = true;
        await sleep(settings.pollIntervalMs);
        waitingForSlot = false;
        continue;
      }
      notified = false;
      let claimed: Claimed = [];
      capped = false;
      try {
        const leasedBy = listener?.backendPid() ?? null;
        claimed = await claimDue(db, Math.min(free, settings.batchSize), settings.leaseMs, perWebhook, leasedBy, fast());
      } catch (err) {
        logger.error({ err }, 'claiming deliveries failed');
      }
      capped = claimed.capped === true;
      for (const d of claimed) launch(d);
      // Nothing taken though work is due (another claim held the webhook, or no room): claim again after a
      // pause doubling from BUSY_PAUSE_MS to the poll, not a whole poll with free slots (issue 43 §5, 048).
      busyPause = claimed.length === 0 && capped ? Math.min(settings.pollIntervalMs, busyPause * 2 || BUSY_PAUSE_MS) : 0;
      // Nothing more due right now (or no slot left): wait for a notification, a finished attempt or the poll.
      const drained = claimed.length < Math.min(free, settings.batchSize);
      if (running && !notified && (drained || young >= settings.concurrency)) {
        waitingForSlot = young >= settings.concurrency;
        await sleep(busyPause || settings.pollIntervalMs);
        waitingForSlot = false;
      }
    }
    while (inFlight > 0) {
      await recorder.flush();
      if (inFlight > 0) await sleep(50);
    }
  }

  return {
    runOnce,
    start() {
      if (running) return;
      running = true;
      loop = run();
      pruner = startDeliveryPruner(db, settings.deliveryRetentionDays, logger);
      partitions = startPartitionMaintenance(db, logger);
      backedOff = startBackedOffSweep(db, settings.retryBaseMs, settings.pollIntervalMs, logger, (n) =>
        common.metrics?.webhookAttempts.inc({ outcome: 'failed' }, n),
      );
    },
    async stop() {
      running = false;
      wake?.();
      await pruner?.stop();
      await partitions?.stop();
      await backedOff?.stop();
      await loop;
      await listener?.close();
      await sender.close();
      logger.info('dispatcher stopped');
    },
  };
}
