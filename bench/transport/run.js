// CPU per node answer: global fetch + text (tron's and TON's clients before issue 31) against the
// kit's requestNode (undici request, body as bytes), on a loopback server sending a 150 KB body.
// node bench/transport/run.js [requests]   (after npm run build)
const { createServer } = require('node:http');
const { requestNode } = require('@walletd/plugin-kit');

const body = JSON.stringify({ blockID: 'ab'.repeat(32), transactions: 'x'.repeat(150_000) });
const n = Number(process.argv[2] ?? 2000);

async function measure(label, once) {
  for (let i = 0; i < 100; i++) await once(); // warm-up
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) await once();
  const { user, system } = process.cpuUsage(start);
  console.log(`${label}: ${((user + system) / n).toFixed(0)} µs CPU per answer (${n} answers)`);
}

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
});
server.listen(0, '127.0.0.1', async () => {
  const url = `http://127.0.0.1:${server.address().port}/wallet/getblockbynum`;
  const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"num":1}' };
  await measure('fetch + text', async () => (await fetch(url, init)).text());
  await measure('requestNode (undici, bytes)', () =>
    requestNode('/wallet/getblockbynum', url, { ...init, timeoutMs: 15_000, maxBytes: 64 << 20, attempts: 3 }),
  );
  server.close();
});
