import type { Logger } from '@walletd/core';
import type { AttemptOutcome } from './deliveryStore';

/** The finished attempts' outcomes, recorded in batches by one record at a time. */
export interface OutcomeRecorder {
  /** An attempt ended: its outcome is recorded with the others finished by then. */
  add(outcome: AttemptOutcome): void;
  /** Records what is finished so far (waits for the record in progress first). */
  flush(): Promise<void>;
}

/**
 * `record` stores a batch (one statement); `recorded(batch)` is told once the batch is stored or
 * given up: a slot is free again only then. A record starts after the turn of the event loop that
 * read the first answer (setImmediate), so answers read together go in one statement: started at
 * the first one, it recorded that outcome alone and the others in a second statement (58 of 281
 * records in a backlog drain were of one row, issue 43 §5). Outcomes that finish while a record
 * runs go in the next one.
 */
export function outcomeRecorder(
  record: (batch: AttemptOutcome[]) => Promise<void>,
  recorded: (batch: AttemptOutcome[]) => void,
  logger: Logger,
): OutcomeRecorder {
  let finished: AttemptOutcome[] = [];
  let flushing: Promise<void> | undefined;

  async function drain(): Promise<void> {
    while (finished.length > 0) {
      const batch = finished;
      finished = [];
      try {
        await record(batch);
      } catch (err) {
        // Unrecorded attempts are retried when their lease ends: nothing is lost, a POST may repeat.
        logger.error({ err, deliveries: batch.length }, 'could not record delivery attempts');
      }
      recorded(batch);
    }
  }

  function flush(): Promise<void> {
    if (!flushing) {
      flushing = new Promise<void>((resolve) => setImmediate(resolve)).then(drain).finally(() => {
        flushing = undefined;
        if (finished.length > 0) void flush();
      });
    }
    return flushing;
  }

  return {
    add(outcome) {
      finished.push(outcome);
      void flush();
    },
    flush,
  };
}
