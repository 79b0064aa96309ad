import { openWalletSecret } from '@walletd/core';
import { type XrpPayload, type XrpReader, createXrpPlugin } from '@walletd/plugin-xrp';
import { type RecordedRippled, startRecordedRippled, xrpFixture, nativeAsset } from '@walletd/test-harness';

/**
 * The XRP reader and verbs against real rippled responses replayed verbatim (xrpl.js's recorded
 * fixtures, the XRP Ledger documentation's recorded answers): how walletd reads what rippled
 * really sends. The replayed answers belong to other accounts and transactions; that is the point:
 * the reader must read them exactly, whatever the request was.
 */
describe('XRP reader on recorded rippled responses', () => {
  const recorded = xrpFixture('xrp-rippled-responses.json').responses;
  const plugin = createXrpPlugin();
  let node: RecordedRippled;
  let reader: XrpReader;
  beforeEach(async () => {
    node = await startRecordedRippled();
  });
  afterEach(async () => {
    await reader?.close?.();
    await node.stop();
  });

  it('account_info (xrpl.js fixture): balance exact, the reserve for its one owned object kept out of spendable', async () => {
    reader = plugin.createReader('xrp', 'localnet', { rpcUrl: node.url });
    node.replay('account_info', recorded.account_info);
    // Balance 922913243 drops, OwnerCount 1; this server's reserve: 1 XRP base + 0.2 XRP per object.
    expect(await reader.getBalance('r9cZA1mLK5R5Am25ArfXFmqgNwjZgnfk59', nativeAsset('xrp', 'localnet'))).toEqual({
      total: 922_913_243n,
      spendable: 922_913_243n - 1_200_000n,
    });
  });

  it('server_info of a network numbered 21338: accepted on the local network and put in every Payment (NetworkID), refused for mainnet', async () => {
    reader = plugin.createReader('xrp', 'localnet', { rpcUrl: node.url });
    node.replay('server_info', recorded.server_info_network_21338);
    expect(await reader.chainId?.()).toBe('21338');
    const secret = openWalletSecret(
      Buffer.from('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'),
    );
    const source = plugin.deriveAddress('xrp', 'localnet', secret, 0).address;
    node.fund(source, 50_000_000n);
    node.fund('rNxp4h8apvRis6mJf9Sh8C6iRxfrDWN7AV', 50_000_000n);
    node.close();
    const prepared = await plugin.withdrawals!.build(
      {
        chain: 'xrp',
        network: 'localnet',
        asset: nativeAsset('xrp', 'localnet'),
        outputs: [{ to: 'rNxp4h8apvRis6mJf9Sh8C6iRxfrDWN7AV', amount: 1n }],
        sources: [source],
      },
      reader,
    );
    expect((prepared.payload as XrpPayload).tx.NetworkID).toBe(21338);

    const mainnet = plugin.createReader('xrp', 'mainnet', { rpcUrl: node.url });
    node.replay('server_info', recorded.server_info_network_21338);
    await expect(mainnet.chainId?.()).rejects.toThrow(/network_id 21338, not mainnet/);
    await mainnet.close?.();
  });

  it('submit answered tesSUCCESS or terQUEUED (recorded): the Payment is taken; verify then reads the ledger', async () => {
    reader = plugin.createReader('xrp', 'localnet', { rpcUrl: node.url });
    const signed = { raw: recorded.submit_tesSUCCESS.result.tx_blob, txHash: recorded.submit_tesSUCCESS.result.tx_json.hash };
    node.replay('submit', recorded.submit_tesSUCCESS);
    await expect(plugin.withdrawals!.broadcast(signed, reader)).resolves.toBeUndefined();
    node.replay('submit', recorded.submit_terQUEUED);
    await expect(plugin.withdrawals!.broadcast(signed, reader)).resolves.toBeUndefined();
  });
});
