/**
 * A fixed request rate, evenly paced: loadtest's open-loop `requestsPerSecond` sends one request
 * every 1/rate seconds whatever the answers do (a new keep-alive connection when every one is
 * busy), and each latency is timed here to the microsecond (loadtest keeps whole milliseconds).
 *
 * Why not autocannon's `overallRate`: each of its connections sends its quota for the second
 * back to back when its one-second timer fires, and the timers of all connections fire together, so
 * "300 a second" arrives as one burst of 300 at the top of every second, queued behind each
 * other; and it records each latency "with expected interval" ceil(1/rate per connection) = 1 ms,
 * adding a made-up sample for every millisecond a response took. Its p99 at a fixed rate measured
 * the burst's queue, not a request (bench/README.md, `api`, "The fixed rate, paced").
 */
// Node 24 prints a DEP0060 warning (`util._extend`) once when this loads: it comes from the
// agentkeepalive 2.x that loadtest pins for its keep-alive agent, and changes nothing measured.
const { loadTest } = require('loadtest');

async function pacedRun({ url, key, rate, seconds, spread }) {
  const latencies = [];
  let failed = 0;
  const result = await loadTest({
    url,
    requestsPerSecond: rate,
    maxSeconds: seconds,
    agentKeepAlive: true,
    quiet: true,
    headers: { authorization: `Bearer ${key}` },
    requestGenerator(_options, params, request, connect) {
      params.headers['x-forwarded-for'] = spread();
      const started = process.hrtime.bigint();
      return request(params, (res) => {
        res.once('end', () => {
          if (res.statusCode !== 200) failed++;
          latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
        });
        connect(res);
      });
    },
  });
  // Requests that got no answer in time (loadtest's "-1": a machine too busy for the rate) never reach
  // the callback above: counted apart, and printed, so an overloaded run says so instead of
  // reporting the answers that did come.
  const unanswered = Math.max(0, (result.totalErrors ?? 0) - failed);
  const sorted = latencies.sort((a, b) => a - b);
  const at = (q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : null);
  const round = (v) => (v === null ? null : Math.round(v * 100) / 100);
  return { total: sorted.length, failed, unanswered, rps: sorted.length / seconds, p50: round(at(0.5)), p99: round(at(0.99)) };
}

module.exports = { pacedRun };
