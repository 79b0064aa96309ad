/**
 * A range measured in rounds (BENCH_EMPTY_ROUNDS for the empty blocks): floor and catch-up
 * alternated, then summed, so a row of fast blocks lasts seconds without mining more of them (a
 * longer chain made anvil's once-a-second state dump, and every later row, slower: 3000 empty
 * blocks took the 400-log floor from ~110 to ~35 blocks/s, issue 41, s11) and one dump falling in
 * one round weighs on both sides alike.
 */
const sum = (xs, f) => xs.reduce((a, x) => a + f(x), 0);
const mean = (xs, f) => sum(xs, f) / xs.length;
/** null where /proc is not read (procCpu.js). */
const sumOrNull = (xs, f) => (xs.some((x) => f(x) === null) ? null : sum(xs, f));
const meanOrNull = (xs, f) => (xs.some((x) => f(x) === null) ? null : mean(xs, f));

/** The floors of the rounds (floorsOf().floor), as one: seconds summed, per-block figures averaged. */
function mergeFloors(fs) {
  return {
    seconds: sum(fs, (f) => f.seconds),
    bytes: fs[0].bytes,
    cpuPerBlock: mean(fs, (f) => f.cpuPerBlock),
    mainCpuPerBlock: mean(fs, (f) => f.mainCpuPerBlock),
    anvilPerBlock: meanOrNull(fs, (f) => f.anvilPerBlock),
  };
}

/** The catch-ups of the rounds (each already checked for its deposits), as one: totals. */
function mergeCatchUps(rs) {
  return {
    seconds: sum(rs, (r) => r.seconds),
    blocks: sum(rs, (r) => r.blocks),
    deposits: rs[0].deposits,
    cpuMs: sum(rs, (r) => r.cpuMs),
    anvilMs: sumOrNull(rs, (r) => r.anvilMs),
    pgMs: sumOrNull(rs, (r) => r.pgMs),
  };
}

module.exports = { mergeCatchUps, mergeFloors };
