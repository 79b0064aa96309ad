/**
 * The outbox bench's producer: commits deposit events for one system (walletd's outbox write, or a
 * graphile-worker job per event), from BENCH_PRODUCERS concurrent producers, paced or as fast as
 * they go.
 */
const { randomUUID } = require('node:crypto');
const { performance } = require('node:perf_hooks');
const { recordEvent } = require('@walletd/core');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let txCounter = 0;
/** The `data` of a confirmed deposit, as test/src/harness/events.ts records it. */
function depositData() {
  txCounter += 1;
  return {
    chain: 'ethereum',
    network: 'sepolia',
    txHash: `0x${txCounter.toString(16).padStart(64, '0')}`,
    addressId: 1,
    confirmations: 12,
    status: 'confirmed',
    direction: 'incoming',
    amount: '1.5',
    asset: { key: 'ethereum:sepolia:eth', symbol: 'ETH', decimals: 18, contractAddress: null },
    fromAddress: '0x1111111111111111111111111111111111111111',
    toAddress: '0x2222222222222222222222222222222222222222',
    eventType: 'native_transfer',
    eventIndex: 0,
  };
}

/**
 * One event, one transaction, one commit. walletd: recordEvent() (event row + delivery row +
 * pg_notify). graphile-worker: graphile_worker.add_job() with the same envelope bytes as payload
 * (job row + its own notify). Returns the event id.
 */
function makeProducer(system, db, seed) {
  const input = () => ({
    type: 'deposit.confirmed',
    chain: 'ethereum',
    network: 'sepolia',
    companyId: seed.companyId,
    walletId: seed.walletId,
    data: depositData(),
  });
  if (system === 'walletd') {
    return async () => {
      const trx = await db.transaction();
      try {
        const { envelope } = await recordEvent(trx, input());
        await trx.commit();
        return envelope.id;
      } catch (err) {
        await trx.rollback().catch(() => undefined);
        throw err;
      }
    };
  }
  return async () => {
    const i = input();
    const envelope = {
      id: randomUUID(),
      type: i.type,
      chain: i.chain,
      network: i.network,
      companyId: i.companyId,
      createdAt: new Date().toISOString(),
      data: i.data,
    };
    const payload = JSON.stringify({ url: seed.receiverUrl, eventId: envelope.id, body: JSON.stringify(envelope) });
    const trx = await db.transaction();
    try {
      await trx.raw(`select graphile_worker.add_job('deliver', ?::json)`, [payload]);
      await trx.commit();
      return envelope.id;
    } catch (err) {
      await trx.rollback().catch(() => undefined);
      throw err;
    }
  };
}

/**
 * Commits `count` events from `producers` concurrent loops; with `rate` > 0, event i starts no
 * earlier than start + i/rate seconds. Commit time = when the COMMIT's reply reached us.
 */
async function produce(produceOne, count, producers, rate) {
  const commitAt = new Map();
  let next = 0;
  const start = performance.now();
  async function loop() {
    for (;;) {
      const i = next++;
      if (i >= count) return;
      if (rate > 0) {
        const due = start + (i * 1000) / rate;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
      }
      const id = await produceOne();
      commitAt.set(id, performance.now());
    }
  }
  await Promise.all(Array.from({ length: Math.min(producers, count) }, loop));
  const times = [...commitAt.values()];
  return { commitAt, firstCommit: Math.min(...times), lastCommit: Math.max(...times) };
}

module.exports = { makeProducer, produce };
