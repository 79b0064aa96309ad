import { join } from 'node:path';
import { type AssetRef, type ChainPlugin, fromBaseUnits, openWalletSecret, toBaseUnits } from '@walletd/plugin-kit';
import {
  type ConformanceBlock,
  type ConformanceResult,
  type ConformanceSuite,
  pluginConformance,
  runConformance,
  withdrawalConformance,
} from '@walletd/plugin-kit/testing';
import {
  type InstalledPlugin,
  type RegtestNode,
  type Seeded,
  type TestDatabase,
  type WalletdProcess,
  call,
  createTestDatabase,
  describeWithLitecoind,
  eventually,
  packAndInstallExample,
  seedCompany,
  serveWithConfig,
  startLitecoind,
} from '@walletd/test-harness';

/**
 * Issue 31's proof that the plugin kit is open: `examples/plugin-litecoin`, a chain no walletd
 * package names, written outside the workspaces against `@walletd/plugin-kit` alone, is packed
 * with `npm pack`, installed from the tarball by package name, passes the public conformance kit
 * on blocks and transactions of a real litecoind regtest node, and serves a deposit and a
 * withdrawal through a real `walletd serve` that names it in `plugins`.
 */
describeWithLitecoind(
  'examples/plugin-litecoin: packed, installed by name, conformant, deposit and withdrawal through walletd serve',
  () => {
    let installed: InstalledPlugin;
    let plugin: ChainPlugin;
    let node: RegtestNode;

    const LTC: AssetRef = { key: 'litecoin:regtest:ltc', symbol: 'LTC', decimals: 8, contractAddress: null };
    const other = openWalletSecret(Buffer.from('legal winner thank year wave sausage worth useful legal winner thank yellow'));
    const addressAt = (index: number) => plugin.deriveAddress('litecoin', 'regtest', other, index).address;
    const header = async (height: number) => {
      const hash = await node.rpc<string>('getblockhash', [height]);
      return {
        number: BigInt(height),
        hash,
        parentHash: (await node.rpc<{ previousblockhash: string }>('getblock', [hash])).previousblockhash,
      };
    };
    const framed = async (hash: string) => {
      const { height } = await node.rpc<{ height: number }>('getblock', [hash]);
      const raw = Buffer.from(await node.rpc<string>('getblock', [hash, 0]), 'hex');
      const out = Buffer.alloc(8 + raw.length);
      out.writeBigUInt64BE(BigInt(height));
      raw.copy(out, 8);
      return out;
    };
    /** The output of `txid` paying `address`, as the node decodes it. */
    const outputTo = async (txid: string, address: string) => {
      type Out = { n: number; value: number; scriptPubKey: { address?: string; addresses?: string[] } };
      const tx = await node.rpc<{ vout: Out[] }>('getrawtransaction', [txid, true]);
      return tx.vout.find((o) => o.scriptPubKey.address === address || o.scriptPubKey.addresses?.includes(address));
    };
    const voutOf = async (txid: string, address: string) => (await outputTo(txid, address))?.n as number;
    const allPassed = (results: ConformanceResult[]) => expect(results.filter((r) => !r.passed)).toEqual([]);
    const run = async (suite: ConformanceSuite) => {
      const results = await runConformance(suite);
      allPassed(results);
      return results;
    };

    beforeAll(async () => {
      installed = packAndInstallExample('plugin-litecoin');
      plugin = installed.load<{ createPlugin(): ChainPlugin }>().createPlugin();
      node = await startLitecoind();
    }, 120_000);
    afterAll(async () => {
      await node?.stop();
      installed?.remove();
    });

    it('is a packed tarball installed by its package name, declaring a chain of its own', () => {
      expect(installed.tarball).toBe('walletd-plugin-litecoin-0.1.0.tgz');
      expect(require.resolve('walletd-plugin-litecoin', { paths: [installed.dir] })).toContain(installed.nodePath);
      // Its libraries came with it (the tree of its npm-shrinkwrap.json), not from this checkout.
      const own = join(installed.nodePath, 'walletd-plugin-litecoin');
      for (const lib of ['bitcoinjs-lib', 'bip32', 'tiny-secp256k1'])
        expect(require.resolve(lib, { paths: [own] })).toContain(join(own, 'node_modules', lib));
      expect(plugin.chains.map((c) => [c.chain, c.networks.map((n) => n.network)])).toEqual([
        ['litecoin', ['mainnet', 'testnet', 'regtest']],
      ]);
    });

    it('passes the deposit conformance kit on blocks litecoind mined, a reorg included', async () => {
      const [w0, w1, w2] = [addressAt(0), addressAt(1), addressAt(2)];
      // One transaction paying two watched addresses and one that is not watched.
      const paid = await node.rpc<string>('sendmany', ['', { [w0]: '1.5', [w1]: '0.25', [await node.rpc<string>('getnewaddress')]: '3' }]);
      const [mined] = await node.mine(1);
      const minedHeight = (await node.rpc<{ height: number }>('getblock', [mined])).height;
      // A reorg: block A pays w2; the node drops A for B at the same height, which does not carry it.
      const ancestor = await header(minedHeight);
      await node.rpc('sendtoaddress', [w2, '0.5']);
      const [a] = await node.mine(1);
      await node.rpc('invalidateblock', [a]);
      const { hash: b } = await node.rpc<{ hash: string }>('generateblock', [await node.rpc<string>('getnewaddress'), []]);
      const blocks: ConformanceBlock[] = [
        {
          name: 'litecoin/regtest: one transaction paying two watched addresses beside one that is not',
          chain: 'litecoin',
          network: 'regtest',
          raw: await framed(mined as string),
          watched: [w0, w1],
          header: await header(minedHeight),
          expected: [
            {
              txHash: paid,
              eventIndex: await voutOf(paid, w0),
              logIndex: await voutOf(paid, w0),
              to: w0,
              amount: '150000000',
              assetKey: LTC.key,
            },
            {
              txHash: paid,
              eventIndex: await voutOf(paid, w1),
              logIndex: await voutOf(paid, w1),
              to: w1,
              amount: '25000000',
              assetKey: LTC.key,
            },
          ].sort((x, y) => x.eventIndex - y.eventIndex),
        },
      ];
      const utxo = 'a UTXO chain';
      const results = await run(
        pluginConformance({
          plugin,
          targets: ['mainnet', 'testnet', 'regtest'].map((network) => ({ chain: 'litecoin', network })),
          blocks,
          reorgs: [
            {
              name: 'litecoin/regtest: invalidateblock',
              chain: 'litecoin',
              network: 'regtest',
              watched: [w2],
              ancestor,
              orphaned: [await framed(a as string)],
              replacement: [await framed(b)],
            },
          ],
          // BIP-84 on coin type 2, the address bitcoinjs-lib and bip32 derive for this mnemonic and path.
          vectors: [
            {
              chain: 'litecoin',
              network: 'mainnet',
              mnemonic: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
              index: 0,
              address: 'ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh',
            },
          ],
          notCovered: {
            'failed-transaction': `${utxo}: a transaction is valid or never mined; no included transaction fails`,
            'unlisted-token': `${utxo}: litecoin has no tokens`,
            'look-alike-token': `${utxo}: litecoin has no tokens`,
            'amount-above-2^53': 'regtest cannot fund 90 million LTC; bitcoinjs-lib reads amounts as 8-byte integers into bigint',
            from: `${utxo}: an output names no sender (inputs are previous outputs, not read by detect)`,
            memo: 'litecoin transfers carry no memo',
            'destination-tag': 'litecoin has no destination tags',
            'own-change': "walletd drops a withdrawal's change to the wallet's change address, not the detector (plugins/README.md)",
            'internal-movement': 'walletd drops outputs paying the wallet inside its own withdrawal, not the detector (plugins/README.md)',
            'zero-amount':
              'litecoind relays no 0-value output (dust), so regtest mines none; walletd drops any amount ≤ 0 (plugins/README.md)',
          },
        }),
      );
      expect(results.length).toBeGreaterThan(8);
    });

    it('passes the withdrawal conformance kit on litecoind regtest', async () => {
      await run(
        withdrawalConformance(plugin, {
          chain: 'litecoin',
          network: 'regtest',
          asset: LTC,
          recipients: [addressAt(10), addressAt(11)],
          amount: 10_000_001n,
          notCovered: {
            failed_on_chain: 'a litecoin transaction is valid or never mined: none is included and fails',
            dropped: 'litecoind has no call that evicts one transaction from its mempool',
            expired: 'litecoin transactions do not expire',
            'token-without-transfer': 'litecoin has no tokens',
          },
          start: async () => ({
            rpcUrl: node.url,
            // Three coins, so every check has one of its own whatever change does.
            fund: async (address) => {
              for (let i = 0; i < 3; i++) await node.rpc('sendtoaddress', [address, '1']);
              await node.mine(1);
            },
            settle: async () => {
              await node.mine(1);
            },
            // Regtest mines only when told: a transaction stays in the pool until `settle`.
            hold: async () => undefined,
            release: async () => undefined,
            stop: async () => undefined,
          }),
        }),
      );
    });

    describe('through a real walletd serve that names it in plugins', () => {
      let t: TestDatabase;
      let proc: WalletdProcess;
      let base: string;
      let s: Seeded;
      const api = (method: string, path: string, body?: unknown) => call(base, method, `/v1${path}`, { key: s.rootKey, body });
      const ltc = async (wallet: number) => {
        type Row = { asset: { symbol: string }; confirmed: string; pending: string };
        const rows = (await api('GET', `/wallets/${wallet}/balances`)).body.balances as Row[];
        return rows.find((r) => r.asset.symbol === 'LTC');
      };

      beforeAll(async () => {
        t = await createTestDatabase();
        const startBlock = (await node.rpc<number>('getblockcount')) + 1;
        ({ proc, base } = await serveWithConfig(
          t.url,
          {
            bootstrap: false,
            devnet: { enabled: false },
            plugins: ['walletd-plugin-litecoin'],
            chains: [{ chain: 'litecoin', network: 'regtest', rpcUrl: node.url, startBlock, pollIntervalMs: 100 }],
          },
          { NODE_PATH: installed.nodePath },
        ));
        s = await seedCompany(t.db);
      }, 120_000);
      afterAll(async () => {
        proc?.child.kill('SIGTERM');
        await proc?.exited;
        await t?.drop();
      });

      it('a deposit on litecoind is confirmed, and a withdrawal out of it is confirmed on chain', async () => {
        const wallet = await api('POST', '/wallets', { name: 'ltc', chain: 'litecoin', network: 'regtest' });
        expect(wallet.status).toBe(201);
        const deposit = await api('POST', `/wallets/${wallet.body.id}/addresses`);
        expect(deposit.status).toBe(201);
        expect(deposit.body.address).toMatch(/^rltc1q/);

        const txid = await node.rpc<string>('sendtoaddress', [deposit.body.address, '2']);
        await node.mine(1);
        expect(
          await eventually(
            () => ltc(wallet.body.id),
            (b) => b?.confirmed === '2',
          ),
        ).toMatchObject({ confirmed: '2', pending: '0' });
        expect(JSON.stringify((await api('GET', '/transactions')).body)).toContain(txid);

        const to = addressAt(20);
        const prepared = await api('POST', `/wallets/${wallet.body.id}/withdrawals`, {
          asset: 'LTC',
          outputs: [{ toAddress: to, amount: '0.75' }],
          idempotencyKey: 'ltc-out-1',
        });
        expect(prepared.status).toBe(201);
        expect(prepared.body).toMatchObject({ status: 'prepared', amount: '0.75', sourceAddresses: [deposit.body.address] });
        const sent = await api('POST', `/withdrawals/${prepared.body.id}/broadcast`);
        expect([sent.status, sent.body.status]).toEqual([200, 'broadcast']);
        // The node decodes what walletd signed through the plugin: 0.75 LTC to the recipient.
        expect((await outputTo(sent.body.txHash, to))?.value).toBe(0.75);

        await node.mine(1);
        const done = await eventually(
          async () => (await api('GET', `/withdrawals/${prepared.body.id}`)).body,
          (w) => w.status === 'confirmed',
        );
        expect(done).toMatchObject({ status: 'confirmed', txHash: sent.body.txHash, amount: '0.75', toAddress: to });
        // The fee walletd reports is the one paid on chain: the 2 LTC coin less what the outputs carry.
        const mined = await node.rpc<{ vout: { value: number }[] }>('getrawtransaction', [sent.body.txHash, true]);
        const paidOut = mined.vout.reduce((sum, o) => sum + toBaseUnits(o.value.toFixed(8), 8), 0n);
        expect(done.fee.amount).toBe(fromBaseUnits(200_000_000n - paidOut, 8));
        // The change came back to the wallet's own change address: not a deposit, nothing credited twice.
        const left = fromBaseUnits(200_000_000n - 75_000_000n - toBaseUnits(done.fee.amount, 8), 8);
        expect(
          await eventually(
            () => ltc(wallet.body.id),
            (b) => b?.confirmed === left,
          ),
        ).toMatchObject({ confirmed: left, pending: '0' });
      });
    });
  },
);
