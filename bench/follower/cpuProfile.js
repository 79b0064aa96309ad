const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

/**
 * BENCH_PROFILE_DIR: a CPU profile of the main thread over each catch-up (`<range>-depth<n>.cpuprofile`),
 * and one per detect thread (`<range>-depth<n>-workers/`: each catch-up then has a pool of its own,
 * started with `--cpu-prof`, closed after it). `node bench/follower/profileTop.js <file or dir>`
 * lists the top self-time functions.
 */
async function startProfile() {
  const { Session } = require('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async (name) => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(join(process.env.BENCH_PROFILE_DIR, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}

module.exports = { startProfile };
