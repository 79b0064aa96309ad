import { openWalletSecret } from '@walletd/core';
import type { ChainReader } from '@walletd/plugin-kit';
import { addressOfScript, createUtxoPlugin, scriptOf, utxoNetwork } from '@walletd/plugin-utxo';
import { type RegtestNode, asLitecoind, describeWithLitecoind, nativeAsset, startLitecoind } from '@walletd/test-harness';

/**
 * The tracker verifies a `signed` payout while the API call that sends it is still under way. The
 * broadcast can land between verify's reads: seen first as "not in the mempool, not in a block",
 * then as "its coins are spent", the payout read as double-spent and was rejected
 * (`mempool_dropped`) while the node held it (found by the dogecoin playground under load). Here the
 * broadcast is made to land exactly after verify's first read, on a real regtest node.
 */
const net = utxoNetwork('dogecoin', 'regtest');
const onNode = (address: string) => addressOfScript(asLitecoind(net), scriptOf(net, address)) as string;

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
    const verbs = plugin.withdrawals as NonNullable<typeof plugin.withdrawals>;
    const reader = plugin.createReader('dogecoin', 'regtest', { rpcUrl: node.url }) as ChainReader & {
      call: (method: string, params: unknown[]) => Promise<{ result: unknown }>;
    };
    const secret = openWalletSecret(
      Buffer.from('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'),
    );
    const elsewhere = openWalletSecret(Buffer.from('legal winner thank year wave sausage worth useful legal winner thank yellow'));
    const source = plugin.deriveAddress('dogecoin', 'regtest', secret, 0).address;
    const recipient = plugin.deriveAddress('dogecoin', 'regtest', elsewhere, 0).address;
    await node.rpc('sendtoaddress', [onNode(source), '2']);
    await node.mine(1);
    const unsigned = await verbs.build(
      {
        chain: 'dogecoin',
        network: 'regtest',
        asset: nativeAsset('dogecoin', 'regtest'),
        outputs: [{ to: recipient, amount: 50_000_000n }],
        sources: [source],
      },
      reader,
    );
    const signed = await verbs.sign(unsigned, secret, [0]);

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
