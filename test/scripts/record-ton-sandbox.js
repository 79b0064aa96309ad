#!/usr/bin/env node
/**
 * Records test/fixtures/ton/ton-sandbox-bounce-comment-large.json: three transactions executed by
 * @ton/sandbox (the real TVM and wallet contracts), each as its BOC (cell hash = transaction hash),
 * for the TON conformance scenario. Run from the repository root: node test/scripts/record-ton-sandbox.js
 * The emulator stamps its own clock into each transaction, so a re-run gives other hashes.
 */
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { Address, beginCell, toNano } = require('@ton/core');
const { Blockchain } = require('@ton/sandbox');

const comment = (text) => beginCell().storeUint(0, 32).storeStringTail(text).endCell();

(async () => {
  const chain = await Blockchain.create();
  const payer = await chain.treasury('payer', { balance: toNano('20000000') });
  const bounced = new Address(0, Buffer.alloc(32, 0x42));
  const paid = new Address(0, Buffer.alloc(32, 0x43));
  const large = new Address(0, Buffer.alloc(32, 0x44));
  const of = async (to, value, bounce, body) => {
    const r = await payer.send({ to, value, bounce, body });
    const t = r.transactions.find((x) => x.inMessage?.info.dest?.equals?.(to));
    return {
      account: to.toRawString(),
      boc: t.raw.toBoc().toString('base64'),
      hash: t.raw.hash().toString('hex'),
      from: payer.address.toRawString(),
    };
  };
  const items = {
    bounced: await of(bounced, toNano('1'), true, comment('invoice 77')),
    comment: await of(paid, toNano('1'), false, comment('invoice 77')),
    large: await of(large, toNano('10000000'), false, undefined),
  };
  const out = {
    schema: 'walletd-fixture/1',
    id: 'ton-sandbox-bounce-comment-large',
    chain: 'ton',
    network: 'localnet',
    kind: 'transactions',
    description:
      'Three incoming transactions executed by @ton/sandbox from one treasury wallet: 1 TON bounceable to an account with no code (compute skipped, bounce phase ok: the value went back), 1 TON non-bounceable with the text comment "invoice 77", and 10,000,000 TON (10^16 nanoton, above 2^53) non-bounceable.',
    format: 'each item: { account (raw 0:hex), boc (base64 transaction BOC), hash (its cell hash, hex), from (raw) }',
    data: items,
    provenance: {
      repo: 'walletd',
      path: 'test/scripts/record-ton-sandbox.js',
      notes: `@ton/sandbox ${require('@ton/sandbox/package.json').version}`,
    },
    verification: 'hash = cell hash of the BOC (re-computed by the TON detect test through @ton/core)',
  };
  writeFileSync(join(__dirname, '..', 'fixtures', 'ton', 'ton-sandbox-bounce-comment-large.json'), `${JSON.stringify(out, null, 2)}\n`);
  console.log(items.bounced.hash, items.comment.hash, items.large.hash);
})();
