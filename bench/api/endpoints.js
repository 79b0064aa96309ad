/**
 * The endpoints an `api` run drives, from BENCH_ENDPOINTS (comma-separated paths). Two forms
 * beyond a plain path: a `scoped:` prefix sends the request with the key limited to some wallets
 * (history runs, history.js), and `after=page10` in a query stands for the cursor of the 10th page
 * of 50, followed from the first page at each size before it is measured.
 */
const PLAIN = ['/v1/wallets', '/v1/me', '/v1/transactions'];
/** With a history (BENCH_API_TRANSFERS): the 50-row pages of issue 48 §5, then the two small reads. */
const HISTORY = [
  '/v1/transactions?limit=50',
  'scoped:/v1/transactions?limit=50',
  '/v1/transactions?limit=50&after=page10',
  '/v1/events?limit=50',
  '/v1/wallets',
  '/v1/me',
];

function endpointSpecs(withHistory) {
  const spec = process.env.BENCH_ENDPOINTS;
  return spec ? spec.split(',') : withHistory ? HISTORY : PLAIN;
}

/** { label, path, scoped } for each spec, the page-10 cursor filled in (`cursor()` is asked once). */
async function resolveEndpoints(specs, cursor) {
  let page10;
  const out = [];
  for (const spec of specs) {
    const scoped = spec.startsWith('scoped:');
    let path = scoped ? spec.slice('scoped:'.length) : spec;
    let label = path;
    if (/[?&]after=page10\b/.test(path)) {
      page10 ??= await cursor();
      path = path.replace(/after=page10\b/, `after=${encodeURIComponent(page10)}`);
      label = label.replace(/after=page10\b/, 'after=<page 10>');
    }
    out.push({ label: scoped ? `${label} (scoped key)` : label, path, scoped });
  }
  return out;
}

module.exports = { endpointSpecs, resolveEndpoints };
