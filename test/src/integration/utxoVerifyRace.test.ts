import type { ChainReader } from '@walletd/plugin-kit';
import { createUtxoPlugin } from '@walletd/plugin-utxo';
import { type RegtestNode, describeWithLitecoind, signedDogecoinPayout, startLitecoind } from '@walletd/test-harness';

/**
 * The tracker verifies a `signed` payout while the API call that sends it is still under way. The
 * broadcast can land between verify's reads: seen first as "not in the mempool, not in a block",
 * then as "its coins are spent", the payout read as double-spent and was rejected
 * (`mempool_dropped`) while the node held it (found by the dogecoin playground under load). Here the
 * broadcast is made to land exactly after verify's first read, on a real regtest node.
 */
describeWithLitecoind('UTXO verify while its broadcast lands', () => {
  let node: RegtestNode;
  beforeAll(async () => {
    node = await startLitecoind();
  }, 60_000);
  afterAll(async () => {
    await node?.stop();
  });

  it('never rejects a payout its own broadcast is putting in the mempool between two reads', async () => {
    const plugin = createUtxoPlugin();
    const reader = plugin.createReader('dogecoin', 'regtest', { rpcUrl: node.url }) as ChainReader & {
      call: (method: string, params: unknown[]) => Promise<{ result: unknown }>;
    };
    const { verbs, unsigned, signed } = await signedDogecoinPayout(node, reader);

    // The first answer verify reads is taken before the broadcast; every later one after it.
    let landed = false;
    const racing = Object.create(reader) as typeof reader;
    racing.call = async (method, params) => {
      const answer = await reader.call(method, params);
      if (!landed) {
        landed = true;
        await node.rpc('sendrawtransaction', [signed.raw]);
      }
      return answer;
    };
    const verdict = await verbs.verify(unsigned, signed.txHash, racing);
    expect(landed).toBe(true);
    expect(verdict.status).not.toBe('rejected');
    // And read again, it is what the node holds: in the mempool.
    expect((await verbs.verify(unsigned, signed.txHash, reader)).status).toBe('pending');
  });
});
