import type { ChainReader } from '@walletd/plugin-kit';
import { createUtxoPlugin } from '@walletd/plugin-utxo';
import {
  type RegtestNode,
  type RpcProxy,
  describeWithLitecoind,
  signedDogecoinPayout,
  startLitecoind,
  startRpcProxy,
} from '@walletd/test-harness';

/**
 * Dogecoin Core 1.14 (Bitcoin Core 0.14) takes `getrawtransaction txid ( verbose )` and answers a
 * third parameter (the block hash, Bitcoin Core 0.16+) with its usage text as RPC_MISC_ERROR.
 * Here litecoind regtest plays the dogecoin regtest node (both P2PKH at 0x6f; legacy inputs make
 * build fetch each coin's previous transaction) behind a proxy that answers such a call as
 * dogecoind 1.14 does, with its own words (src/rpc/rawtransaction.cpp of dogecoin 1.14).
 */
const DOGECOIN_114_USAGE =
  'getrawtransaction "txid" ( verbose )\n\nNOTE: By default this function only works for mempool transactions. If the -txindex option is\nenabled, it also works for blockchain transactions.\nDEPRECATED: for now, it also works for transactions with unspent outputs.\n';

describeWithLitecoind('a UTXO node that takes no block hash in getrawtransaction (Dogecoin Core 1.14)', () => {
  let node: RegtestNode;
  let proxy: RpcProxy;
  const refused: unknown[][] = [];
  beforeAll(async () => {
    node = await startLitecoind();
    const url = new URL(node.url);
    proxy = await startRpcProxy(`http://${url.host}`, {
      rewrite: (call, reply) => {
        if (call.method !== 'getrawtransaction' || (call.params?.length ?? 0) <= 2) return;
        refused.push(call.params ?? []);
        const answer = reply as { result?: unknown; error?: unknown };
        answer.result = null;
        answer.error = { code: -1, message: DOGECOIN_114_USAGE };
      },
    });
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    await node?.stop();
  });

  it('builds from legacy coins and verifies the mined withdrawal confirmed, asking by id alone', async () => {
    const through = new URL(proxy.url);
    const { username, password } = new URL(node.url);
    through.username = username;
    through.password = password;
    const reader = createUtxoPlugin().createReader('dogecoin', 'regtest', { rpcUrl: through.toString() }) as ChainReader;
    const { verbs, unsigned, signed } = await signedDogecoinPayout(node, reader);
    await verbs.broadcast(signed, reader);
    await node.mine(1);
    const verdict = await verbs.verify(unsigned, signed.txHash, reader);

    expect(verdict.status).toBe('confirmed');
    expect(verdict.fee).toBe(unsigned.fee);
    // The node was asked with the block hash once, refused it, and was asked by id from then on.
    expect(refused).toHaveLength(1);
    expect(proxy.calls.filter((m) => m === 'getrawtransaction').length).toBeGreaterThanOrEqual(3);
  });
});
