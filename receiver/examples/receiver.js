// A walletd webhook receiver with nothing but Node.js (18 or newer):
//
//   WALLETD_WEBHOOK_SECRET=whsec_… PORT=3000 node receiver.js
//
// It checks x-service-signature over the raw body (401 when it does not match), answers 200 at
// once, ignores an event id it has already accepted, and processes the event afterwards.
const http = require('node:http');

// `npm install @walletd/receiver`. Without the package: compute 'sha256=' +
// crypto.createHmac('sha256', secret).update(rawBody).digest('hex') and compare it with the header
// with crypto.timingSafeEqual (on buffers of equal length); parseEvent is JSON.parse plus a check.
const { verifySignature, parseEvent } = require('@walletd/receiver');

const secret = process.env.WALLETD_WEBHOOK_SECRET;
if (!secret) {
  console.error('Set WALLETD_WEBHOOK_SECRET to the webhook signing secret.');
  process.exit(1);
}

// Ids of the events already accepted: walletd may deliver an event more than once (a retry after
// a timeout, a replay). Memory is lost on restart and not shared between instances; in production
// insert the id into a table with a unique index, in the same transaction as the event's effects,
// and skip the event when the insert conflicts.
const seen = new Set();

async function processEvent(event) {
  // Your work goes here: credit the deposit, settle the withdrawal, notify someone. It runs after
  // the 200, so walletd does not redeliver when it fails: record failures to retry them yourself.
  console.log(`processed ${event.id} ${event.type} ${JSON.stringify(event.data)}`);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const rawBody = Buffer.concat(chunks); // the exact bytes walletd signed, not re-serialized JSON
    if (!verifySignature(secret, rawBody, req.headers['x-service-signature'])) {
      res.writeHead(401).end();
      return;
    }
    let event;
    try {
      event = parseEvent(rawBody);
    } catch (err) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(err.message);
      return;
    }
    res.writeHead(200).end(); // at once, before the work: a slow answer can time out and be sent again
    if (seen.has(event.id)) {
      console.log(`duplicate ${event.id} ignored`);
      return;
    }
    seen.add(event.id);
    setImmediate(() => processEvent(event).catch((err) => console.error(`failed ${event.id}:`, err)));
  });
});

server.listen(Number(process.env.PORT || 3000), process.env.HOST, () => {
  console.log(`listening on port ${server.address().port}`);
});
