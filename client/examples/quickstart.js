#!/usr/bin/env node
/**
 * @walletd/client quickstart: a wallet and a deposit address, the deposit read from the event
 * feed, a payout prepared and broadcast, a larger payout a spending policy sends to people for
 * approval (the typed error names the policies; it becomes a withdrawal request), then the
 * payout's confirmation from the event feed.
 *
 *   WALLETD_URL=http://127.0.0.1:3000 WALLETD_API_KEY=svc_live_… node client/examples/quickstart.js
 *
 * Optional: WALLETD_CHAIN / WALLETD_NETWORK / WALLETD_ASSET (default ethereum/devnet/ETH, the
 * devnet's), PAYOUT_TO (default: anvil's second account), PAYOUT_AMOUNT (0.5), LARGE_AMOUNT (1.2).
 * Fund the printed address (on the devnet: `walletd dev fund --address <it> --amount 2`).
 */
const { createWalletdClient, isWalletdApiError, ok } = require('@walletd/client');

const env = (name, fallback) => process.env[name] ?? fallback;
const chain = env('WALLETD_CHAIN', 'ethereum');
const network = env('WALLETD_NETWORK', 'devnet');
const asset = env('WALLETD_ASSET', 'ETH');
const payoutTo = env('PAYOUT_TO', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const walletd = createWalletdClient({
  baseUrl: env('WALLETD_URL', 'http://127.0.0.1:3000'),
  apiKey: env('WALLETD_API_KEY', ''),
  // Retries 429/502/503/504 (waiting out Retry-After); say so when it happens.
  retry: {
    onRetry: (r) => console.log(`retry ${r.attempt}: ${r.method} ${new URL(r.url).pathname} answered ${r.status}, waiting ${r.delayMs} ms`),
  },
});

/** Polls the event feed from `after` until an event matches; returns it and the cursor to go on from. */
async function waitForEvent(after, matches) {
  for (;;) {
    for await (const page of walletd.pages('/events', { query: { after, types: 'deposit.confirmed,withdrawal.confirmed' } })) {
      const found = page.items.find(matches);
      if (page.next !== null) after = page.next;
      if (found) return { event: found, after };
    }
    await sleep(1000);
  }
}

async function main() {
  const wallet = await ok(walletd.POST('/wallets', { body: { name: 'quickstart', chain, network } }));
  const address = await ok(walletd.POST('/wallets/{id}/addresses', { params: { path: { id: wallet.id } }, body: {} }));
  console.log(`wallet ${wallet.id}, deposit address: ${address.address}`);
  console.log(`ADDRESS ${address.address}`);

  const deposit = await waitForEvent('0', (e) => e.type === 'deposit.confirmed' && e.data.addressId === address.id);
  console.log(`DEPOSIT ${deposit.event.data.amount} ${deposit.event.data.asset.symbol} confirmed (event ${deposit.event.id})`);

  // No idempotencyKey given: the client fills one, so a retried prepare cannot pay twice.
  const amount = env('PAYOUT_AMOUNT', '0.5');
  const prepared = await ok(
    walletd.POST('/wallets/{id}/withdrawals', { params: { path: { id: wallet.id } }, body: { asset, toAddress: payoutTo, amount } }),
  );
  const sent = await ok(walletd.POST('/withdrawals/{id}/broadcast', { params: { path: { id: prepared.id } }, body: {} }));
  console.log(`WITHDRAWAL ${sent.id} ${sent.status} ${sent.txHash}`);

  // Above a policy's threshold, walletd refuses with policy_approval_required (403) and names the
  // policies; the payout becomes a request that people approve in the console.
  const large = env('LARGE_AMOUNT', '1.2');
  try {
    const unasked = await ok(
      walletd.POST('/wallets/{id}/withdrawals', {
        params: { path: { id: wallet.id } },
        body: { asset, toAddress: payoutTo, amount: large },
      }),
    );
    // No policy asked (add one in the console's Policies page): release what it reserved.
    await ok(walletd.POST('/withdrawals/{id}/cancel', { params: { path: { id: unasked.id } } }));
    console.log(`no policy asked for approval of ${large} ${asset}; withdrawal ${unasked.id} cancelled`);
  } catch (e) {
    if (!isWalletdApiError(e, 'policy_approval_required')) throw e;
    console.log(`POLICY ${e.code} policies ${e.details.policyIds.join(',')}: ${e.message}`);
    const request = await ok(
      walletd.POST('/withdrawal-requests', { body: { walletId: wallet.id, asset, toAddress: payoutTo, amount: large } }),
    );
    console.log(`REQUEST ${request.id} ${request.status}: waiting for approvers in the console`);
  }

  await waitForEvent(deposit.after, (e) => e.type === 'withdrawal.confirmed' && e.data.withdrawalId === sent.id);
  console.log(`WITHDRAWAL ${sent.id} confirmed`);
}

main().catch((e) => {
  console.error(isWalletdApiError(e) ? `walletd ${e.status} ${e.code}: ${e.message}` : e);
  process.exit(1);
});
