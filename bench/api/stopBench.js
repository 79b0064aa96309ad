const { rmSync } = require('node:fs');

/**
 * What every `api` bench (main, ab, inProcess) does on its way out, error or not: SIGTERM each
 * server process still running and wait for it to exit (so none outlives the bench holding a port
 * or a connection), then stop the embedded PostgreSQL and remove the bench's folders.
 */
async function stopBench({ children = [], pg, dirs }) {
  await Promise.all(
    children.map((c) =>
      c.exitCode !== null
        ? null
        : new Promise((r) => {
            c.once('exit', r);
            c.kill('SIGTERM');
          }),
    ),
  );
  await pg.stop({ force: true });
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

module.exports = { stopBench };
