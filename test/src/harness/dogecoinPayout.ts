import { openWalletSecret } from '@walletd/core';
import type { ChainReader, UnsignedWithdrawal } from '@walletd/plugin-kit';
import { addressOfScript, createUtxoPlugin, scriptOf, utxoNetwork } from '@walletd/plugin-utxo';
import { nativeAsset } from './chains';
import { type RegtestNode, asLitecoind } from '@walletd/devchains/dist/litecoind';

const net = utxoNetwork('dogecoin', 'regtest');
/** The same output script in litecoind's own address form (litecoind plays the dogecoin regtest node). */
const onNode = (address: string) => addressOfScript(asLitecoind(net), scriptOf(net, address)) as string;

/**
 * A dogecoin regtest payout of 0.5 DOGE built and signed, not sent: the node pays 2 DOGE to the
 * abandon-mnemonic wallet's first address and mines it, then the plugin builds through `reader`
 * (any reader of that node: a proxy in front of it included).
 */
export async function signedDogecoinPayout(node: RegtestNode, reader: ChainReader) {
  const plugin = createUtxoPlugin();
  const verbs = plugin.withdrawals as NonNullable<typeof plugin.withdrawals>;
  const secret = openWalletSecret(
    Buffer.from('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'),
  );
  const elsewhere = openWalletSecret(Buffer.from('legal winner thank year wave sausage worth useful legal winner thank yellow'));
  const source = plugin.deriveAddress('dogecoin', 'regtest', secret, 0).address;
  const recipient = plugin.deriveAddress('dogecoin', 'regtest', elsewhere, 0).address;
  await node.rpc('sendtoaddress', [onNode(source), '2']);
  await node.mine(1);
  const unsigned: UnsignedWithdrawal = await verbs.build(
    {
      chain: 'dogecoin',
      network: 'regtest',
      asset: nativeAsset('dogecoin', 'regtest'),
      outputs: [{ to: recipient, amount: 50_000_000n }],
      sources: [source],
    },
    reader,
  );
  return { verbs, unsigned, signed: await verbs.sign(unsigned, secret, [0]) };
}
