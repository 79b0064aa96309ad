#!/usr/bin/env node
/**
 * Records test/fixtures/ethereum/anvil-internal-transfers.json: blocks mined by a real anvil (npm
 * @foundry-rs/anvil) running test/contracts/Payouts.sol, each with the node's own answers to
 * eth_getBlockByNumber(n, true), eth_getBlockReceipts(n), debug_traceBlockByNumber(n, callTracer)
 * and trace_block(n), unchanged. `expected` lists what the node's balances say arrived. Run from
 * the repository root: node test/scripts/record-evm-traces.js
 */
const { spawn } = require('node:child_process');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { Interface } = require('ethers');
const { compilePayouts } = require('./compile-payouts');

const FUNDER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const PAYEES = ['a1', 'a2', 'a3', 'a4', 'a5'].map((b) => `0x${b.repeat(20)}`);

(async () => {
  const pkg = `@foundry-rs/anvil-${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}`;
  const bin = join(require.resolve(`${pkg}/package.json`), '..', 'bin', 'anvil');
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(bin, ['--port', String(port), '--host', '127.0.0.1', '--silent'], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  let id = 0;
  const rpc = async (method, params = []) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    const body = await res.json();
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  };
  try {
    for (let i = 0; ; i++) {
      try {
        await rpc('eth_chainId');
        break;
      } catch (e) {
        if (i > 100) throw e;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const { abi, bytecode, compiler } = compilePayouts();
    const iface = new Interface(abi);
    const send = async (tx) => {
      const hash = await rpc('eth_sendTransaction', [{ from: FUNDER, gas: '0x100000', ...tx }]);
      for (;;) {
        const r = await rpc('eth_getTransactionReceipt', [hash]);
        if (r) return r;
      }
    };
    const deployed = await send({ data: bytecode, gas: '0x300000' });
    const payouts = deployed.contractAddress;
    // The Safe-like case pays from the contract's own balance.
    await send({ to: payouts, value: '0xde0b6b3a7640000' });
    const hex = (n) => `0x${BigInt(n).toString(16)}`;
    const cases = [
      [
        'forward',
        'a forwarder passes 0.05 ETH on to a1',
        { data: iface.encodeFunctionData('forward', [PAYEES[0]]), value: hex(50_000_000_000_000_000n) },
      ],
      [
        'batch',
        'one transaction pays a1..a5 (0.01, 0.02, 0.03, 0.04, 0.05 ETH)',
        {
          data: iface.encodeFunctionData('batch', [PAYEES, [1n, 2n, 3n, 4n, 5n].map((k) => k * 10_000_000_000_000_000n)]),
          value: hex(150_000_000_000_000_000n),
        },
      ],
      [
        'exec',
        'Safe-like execTransaction: the contract pays a2 0.07 ETH from its balance',
        { data: iface.encodeFunctionData('execTransaction', [PAYEES[1], 70_000_000_000_000_000n, '0x']) },
      ],
      [
        'caught',
        'a1 is paid 0.01 ETH inside a call that reverts and is caught: nothing arrives',
        { data: iface.encodeFunctionData('payThenCatch', [PAYEES[0]]), value: hex(10_000_000_000_000_000n) },
      ],
      [
        'delegate',
        'a3 is paid 0.003 ETH by code run through DELEGATECALL: the CALL under it moves the value once',
        { data: iface.encodeFunctionData('delegateForward', [payouts, PAYEES[2]]), value: hex(3_000_000_000_000_000n) },
      ],
      [
        'delegateToDeposit',
        'DELEGATECALL into a5 (no code) with 0.006 ETH on the frame: nothing arrives',
        { data: iface.encodeFunctionData('delegateTo', [PAYEES[4]]), value: hex(6_000_000_000_000_000n) },
      ],
      [
        'selfdestruct',
        'a contract created with 0.008 ETH destroys itself paying a4',
        { data: iface.encodeFunctionData('payBySelfdestruct', [PAYEES[3]]), value: hex(8_000_000_000_000_000n) },
      ],
      [
        'reverted',
        'the whole transaction reverts after paying a4: nothing arrives',
        { data: iface.encodeFunctionData('payThenFail', [PAYEES[3]]), value: hex(4_000_000_000_000_000n) },
      ],
    ];
    const blocks = {};
    for (const [name, description, tx] of cases) {
      const before = await Promise.all(PAYEES.map((p) => rpc('eth_getBalance', [p, 'latest'])));
      const receipt = await send({ to: payouts, ...tx });
      const n = receipt.blockNumber;
      const after = await Promise.all(PAYEES.map((p) => rpc('eth_getBalance', [p, 'latest'])));
      const arrived = {};
      PAYEES.forEach((p, i) => {
        const d = BigInt(after[i]) - BigInt(before[i]);
        if (d !== 0n) arrived[p] = d.toString();
      });
      blocks[name] = {
        description,
        data: {
          block: await rpc('eth_getBlockByNumber', [n, true]),
          receipts: await rpc('eth_getBlockReceipts', [n]),
          callTraces: await rpc('debug_traceBlockByNumber', [n, { tracer: 'callTracer' }]),
          flatTraces: await rpc('trace_block', [n]),
        },
        expected: { status: receipt.status, arrived },
      };
    }
    const out = {
      schema: 1,
      id: 'anvil-internal-transfers',
      chain: 'ethereum',
      network: 'anvil',
      kind: 'blocks with call traces',
      description: 'Native value moved by contracts (test/contracts/Payouts.sol), one block per case, with both trace shapes',
      provenance: {
        engine: `anvil ${require('@foundry-rs/anvil/package.json').version} (npm)`,
        compiler,
        payouts,
        script: 'test/scripts/record-evm-traces.js',
      },
      blocks,
    };
    writeFileSync(join(__dirname, '..', 'fixtures', 'ethereum', 'anvil-internal-transfers.json'), `${JSON.stringify(out, null, 2)}\n`);
    console.log('wrote test/fixtures/ethereum/anvil-internal-transfers.json');
  } finally {
    child.kill();
  }
})();
