#!/usr/bin/env node
/**
 * Records test/fixtures/bitcoin/ltc-regtest-reorg.json: blocks mined by a real litecoind in regtest
 * (it speaks Bitcoin Core's RPC and block format; only address encodings differ), for the UTXO
 * conformance scenario: block N paying two addresses, then N invalidated and replaced by an empty
 * N' and N'+1 carrying only the second payment again (generateblock). Every fact in `expected`
 * is the node's own answer (getblockheader, decoderawtransaction). Needs `litecoind` on PATH and
 * a built workspace (npm run build). Run from the repository root: node test/scripts/record-utxo-regtest.js
 */
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { startLitecoind } = require('../../devchains/dist');

(async () => {
  const node = await startLitecoind();
  try {
    const header = async (hash) => {
      const h = await node.rpc('getblockheader', [hash]);
      return { number: h.height, hash: h.hash, parentHash: h.previousblockhash };
    };
    const raw = (hash) => node.rpc('getblock', [hash, 0]);
    // Each payment spends a mature coinbase of its own, so either can be mined without the other.
    await node.mine(5);
    const coins = (await node.rpc('listunspent', [1])).filter((u) => Number(u.amount) > 10);
    const payee = async (amount) => {
      const address = await node.rpc('getnewaddress', ['', 'bech32']);
      const coin = coins.shift();
      const change = await node.rpc('getrawchangeaddress', ['bech32']);
      const unsigned = await node.rpc('createrawtransaction', [
        [{ txid: coin.txid, vout: coin.vout }],
        { [address]: amount, [change]: (Number(coin.amount) - Number(amount) - 0.001).toFixed(8) },
      ]);
      const { hex } = await node.rpc('signrawtransactionwithwallet', [unsigned]);
      const txid = await node.rpc('sendrawtransaction', [hex]);
      const tx = await node.rpc('decoderawtransaction', [await node.rpc('getrawtransaction', [txid])]);
      const out = tx.vout.find((o) => o.scriptPubKey.address === address || o.scriptPubKey.addresses?.includes(address));
      const sat = BigInt(Math.round(Number(out.value) * 1e4)) * 10_000n; // amounts below are whole 10^-4 LTC
      return { txid, vout: out.n, script: out.scriptPubKey.hex, nodeAddress: address, amountSat: sat.toString(), rawTx: tx.hex };
    };
    const miner = await node.rpc('getnewaddress', ['', 'bech32']);
    const ancestorHash = await node.rpc('getbestblockhash');
    const first = await payee('1.5');
    const second = await payee('0.7');
    const [n] = await node.rpc('generatetoaddress', [1, miner]);
    const orphaned = { header: await header(n), raw: await raw(n) };
    await node.rpc('invalidateblock', [n]);
    const { hash: n1 } = await node.rpc('generateblock', [miner, []]);
    const { hash: n2 } = await node.rpc('generateblock', [miner, [second.txid]]);
    const out = {
      schema: 'walletd-fixture/1',
      id: 'ltc-regtest-reorg',
      chain: 'litecoin',
      network: 'regtest',
      kind: 'blocks',
      description:
        "Blocks mined by litecoind in regtest (Bitcoin Core block format): block N with two wallet payments (1.5 and 0.7 LTC to new bech32 addresses), then N invalidated and replaced by an empty N' and N'+1 carrying only the 0.7 payment (generateblock).",
      format: 'raw blocks as lowercase hex (getblock <hash> 0); headers from getblockheader; payments from decoderawtransaction',
      data: {
        ancestor: await header(ancestorHash),
        orphaned,
        replacement: [
          { header: await header(n1), raw: await raw(n1) },
          { header: await header(n2), raw: await raw(n2) },
        ],
      },
      expected: { first, second },
      provenance: { repo: 'walletd', path: 'test/scripts/record-utxo-regtest.js', notes: (await node.rpc('getnetworkinfo')).subversion },
      verification:
        'detect recomputes each block hash (double SHA-256 of the header) and txid; the UTXO conformance scenario compares them with these node answers',
    };
    writeFileSync(join(__dirname, '..', 'fixtures', 'bitcoin', 'ltc-regtest-reorg.json'), `${JSON.stringify(out, null, 2)}\n`);
    console.log(out.data.ancestor, orphaned.header, first.txid, second.txid);
  } finally {
    await node.stop();
  }
})();
