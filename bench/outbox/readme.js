/**
 * Writes a run's figures into bench/README.md, between the `outbox:results` markers, leaving the
 * hand-written text around them as it is. A README without the markers gets the section appended.
 */
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { markdown } = require('./stats');

const FILE = join(__dirname, '..', 'README.md');
const START = '<!-- outbox:results:start -->';
const END = '<!-- outbox:results:end -->';

function section({ settings, machine, resultTable, phaseTable, taskTable, cpuTable, medianTable, isolationTable }) {
  const knobs = [
    `BENCH_EVENTS=${settings.events}`,
    `BENCH_WARMUP=${settings.warmup}`,
    `BENCH_MODES=${settings.modes.join(',')}`,
    `BENCH_RUNNERS=${settings.runners.join(',')}`,
    `BENCH_PRODUCERS=${settings.producers}`,
    `BENCH_RATE=${settings.rate}`,
    `BENCH_CONCURRENCY=${settings.concurrency}`,
    `BENCH_BATCH_SIZE=${settings.batchSize}`,
    `BENCH_POLL_MS=${settings.pollMs}`,
    `BENCH_POOL=${settings.pool}`,
    `BENCH_GW_LOCAL_QUEUE=${settings.gwLocalQueue}`,
    `BENCH_GW_COMPLETE_BATCH_MS=${settings.gwCompleteBatchMs}`,
    `BENCH_REPEAT=${settings.repeat}`,
    `BENCH_DEAD=${settings.dead.join(',')}`,
  ].join(' ');
  return [
    START,
    `Run of ${machine.date.slice(0, 16).replace('T', ' ')} UTC: ${machine.cpus} CPU cores (${machine.cpuModel}), ` +
      `${machine.memGiB.toFixed(1)} GiB RAM, Node ${machine.node}, embedded PostgreSQL ${machine.postgres} ` +
      `(fsync and synchronous_commit off), graphile-worker ${machine.graphileWorker}. ` +
      'The producer, the receiver, PostgreSQL and every dispatcher/runner process share these cores. ' +
      `walletd code measured: ${machine.source}.`,
    '',
    `Settings: \`${knobs}\`${settings.walletdDispatcher ? ` with the candidate walletd dispatcher \`${settings.walletdDispatcher}\`` : ''}`,
    '',
    markdown(resultTable.headers, resultTable.rows, resultTable.align),
    '',
    'walletd dispatcher phases (all dispatchers of the scenario together):',
    '',
    markdown(phaseTable.headers, phaseTable.rows, phaseTable.align),
    '',
    'graphile-worker task time (sign + POST + read the response):',
    '',
    markdown(taskTable.headers, taskTable.rows, taskTable.align),
    '',
    'CPU per delivered event in the measured window (runner processes, the benchmark cluster, the bench process with producer and receiver, the rest of the machine), how busy all cores were, and (backlog rows) the CPU of committing the events with no runner running:',
    '',
    markdown(cpuTable.headers, cpuTable.rows, cpuTable.align),
    ...(medianTable
      ? [
          '',
          `Medians over the ${settings.repeat} repeats (each group ran its systems in alternating order):`,
          '',
          markdown(medianTable.headers, medianTable.rows, medianTable.align),
        ]
      : []),
    ...(isolationTable
      ? [
          '',
          'Isolation (walletd, one dispatcher, paced at BENCH_RATE): the healthy receiver beside dead receivers that accept the connection and never answer; p99 / no dead is against the 0-dead row of this run:',
          '',
          markdown(isolationTable.headers, isolationTable.rows, isolationTable.align),
        ]
      : []),
    END,
  ].join('\n');
}

function writeResults(run) {
  // A smoke run's numbers measure nothing (bench/smoke.js): the README keeps the last real run's.
  if (process.env.BENCH_SMOKE === '1') return null;
  const text = section(run);
  const current = existsSync(FILE) ? readFileSync(FILE, 'utf8') : '# Benchmarks\n';
  const a = current.indexOf(START);
  const b = current.indexOf(END);
  const next =
    a >= 0 && b > a
      ? current.slice(0, a) + text + current.slice(b + END.length)
      : `${current.trimEnd()}\n\n## Outbox: latest figures\n\n${text}\n`;
  writeFileSync(FILE, next);
  return FILE;
}

module.exports = { writeResults };
