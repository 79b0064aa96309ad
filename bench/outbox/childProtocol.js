/**
 * Child side of the runner protocol (see runnerProcess.js). `handlers` has init(config), go(),
 * mark() (forget the counters so far: warm-up) and stop() -> stats. The child exits when the
 * parent goes away.
 */
function serveRunner(handlers) {
  const send = (m) => process.connected && process.send(m);
  const guard =
    (fn) =>
    async (...args) => {
      try {
        await fn(...args);
      } catch (err) {
        send({ type: 'error', message: err?.stack ?? String(err) });
      }
    };
  process.on('disconnect', () => process.exit(0));
  process.on(
    'message',
    guard(async (m) => {
      if (m.type === 'init') {
        await handlers.init(m.config);
        send({ type: 'ready' });
      } else if (m.type === 'go') {
        await handlers.go();
        send({ type: 'started' });
      } else if (m.type === 'mark') {
        await handlers.mark();
        send({ type: 'marked' });
      } else if (m.type === 'stop') {
        const stats = await handlers.stop();
        // Disconnect (and so exit) only once the stats have been handed to the parent.
        await new Promise((resolve) => process.send({ type: 'stopped', stats }, resolve));
        process.disconnect();
      }
    }),
  );
}

module.exports = { serveRunner };
