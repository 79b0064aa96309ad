import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DetectContext, mnemonicToSeed, chainTableOf } from '@walletd/plugin-kit';
import { createUtxoPlugin } from './createUtxoPlugin';

// The native asset as this plugin declares it (no list of chains outside the plugins).
const nativeAsset = (chain: string, network: string) => chainTableOf(createUtxoPlugin().chains).nativeAsset(chain, network);
import { addressOfScript, deriveUtxoAddress, formatUtxoAddress, utxoMatchKey, validateUtxoAddress } from './addresses';
import { stripAuxPow } from './auxpow';
import { coinsToUnits } from './coins';
import { detect, frameBlock } from './detect';
import { bitcoin } from './libs';
import { utxoNetwork } from './networks';

const fixture = (path: string) => JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'test', 'fixtures', path), 'utf8'));
const ctx = (chain: 'bitcoin' | 'dogecoin', network: string, watched: string[]): DetectContext => ({
  chain,
  network,
  native: nativeAsset(chain, network),
  tokens: new Map(),
  watched: new Set(watched),
});

describe('UTXO plugin on real mainnet and testnet data', () => {
  it('finds the outputs paying watched scripts in bitcoin block 542213, with exact amounts and addresses', () => {
    const f = fixture('bitcoin/btc-mainnet-block-542213.json');
    const watched = [
      utxoMatchKey('bitcoin', 'mainnet', '1D69P8wysTnTw6CEvX7ShcYFZQaothNGbL'),
      utxoMatchKey('bitcoin', 'mainnet', 'bc1qg8m8gcgses87cypwsvzn6nq2u4h6kx7a92ckrn'),
    ];
    const result = detect(frameBlock(542213n, Buffer.from(f.data.hex, 'hex')), ctx('bitcoin', 'mainnet', watched));
    expect(result.block).toEqual({
      number: 542213n,
      hash: f.expected.blockHash,
      parentHash: f.expected.prevBlockHash,
      timestamp: f.expected.timestamp,
    });
    expect(result.transfers.map((t) => [t.txHash, t.eventIndex, t.logIndex, t.to, t.amount, t.assetKey])).toEqual([
      [
        '66beaceb4be99da1e9824448231ab4fd37bacaee912381e779b37cf0e1dadad7',
        0,
        0,
        '1D69P8wysTnTw6CEvX7ShcYFZQaothNGbL',
        750000n,
        'bitcoin:mainnet:btc',
      ],
      [
        '6c6e3849acf1b570db352dc08f7776e99c344a56fbb2f019e1865d1b6e044889',
        1,
        1,
        'bc1qg8m8gcgses87cypwsvzn6nq2u4h6kx7a92ckrn',
        1150n,
        'bitcoin:mainnet:btc',
      ],
    ]);
    // The whole output list of the transaction travels with the event, in display units.
    expect(result.transfers[1]?.extra?.outputs).toEqual([
      { address: '3HXqvg1xnpL4iHn2LFn7yznEWhc1u3LsBe', amount: '0.01627238' },
      { address: 'bc1qg8m8gcgses87cypwsvzn6nq2u4h6kx7a92ckrn', amount: '0.0000115' },
    ]);
    expect(detect(frameBlock(542213n, Buffer.from(f.data.hex, 'hex')), ctx('bitcoin', 'mainnet', [])).transfers).toEqual([]);
  });

  it('credits no 0-value output to a watched script (address poisoning; consensus allows one): block 542213 with that output zeroed', () => {
    const f = fixture('bitcoin/btc-mainnet-block-542213.json');
    const key = utxoMatchKey('bitcoin', 'mainnet', 'bc1qg8m8gcgses87cypwsvzn6nq2u4h6kx7a92ckrn');
    // 1150 sat as 8 little-endian bytes, the script's length, the script.
    const output = `7e04000000000000${(key.length / 2).toString(16).padStart(2, '0')}${key}`;
    const hex = f.data.hex as string;
    const at = hex.indexOf(output);
    expect(at).toBeGreaterThan(0);
    const zeroed = `${hex.slice(0, at)}${'0'.repeat(16)}${hex.slice(at + 16)}`;
    expect(detect(frameBlock(542213n, Buffer.from(hex, 'hex')), ctx('bitcoin', 'mainnet', [key])).transfers.map((t) => t.amount)).toEqual([
      1150n,
    ]);
    expect(detect(frameBlock(542213n, Buffer.from(zeroed, 'hex')), ctx('bitcoin', 'mainnet', [key])).transfers).toEqual([]);
  });

  it('reads dogecoin block 12345 (31 transactions) and attributes outputs to the right transaction', () => {
    const f = fixture('dogecoin/doge-mainnet-block-12345.json');
    const raw = Buffer.from(f.data.hex, 'hex');
    const block = bitcoin.Block.fromBuffer(raw);
    expect(block.transactions?.map((t) => t.getId())).toEqual(f.expected.txids);
    const tx = block.transactions?.[5];
    const watched = (tx?.outs ?? []).map((o) => Buffer.from(o.script).toString('hex'));
    const result = detect(frameBlock(12345n, raw), ctx('dogecoin', 'mainnet', watched));
    expect(result.block.hash).toBe(f.expected.blockHash);
    expect(new Set(result.transfers.map((t) => t.txHash))).toEqual(new Set([f.expected.txids[5]]));
    expect(result.transfers.reduce((s, t) => s + t.amount, 0n)).toBe((tx?.outs ?? []).reduce((s, o) => s + BigInt(o.value), 0n));
    for (const t of result.transfers) expect(t.to).toMatch(/^[DA9][1-9A-HJ-NP-Za-km-z]{25,34}$/);
  });

  it('reads a merge-mined (AuxPoW) dogecoin block like a plain one: the proof between header and transactions is skipped', () => {
    const f = fixture('dogecoin/doge-mainnet-block-12345.json');
    const plain = Buffer.from(f.data.hex, 'hex');
    const header = Buffer.from(plain.subarray(0, 80));
    header.writeUInt32LE(header.readUInt32LE(0) | 0x100, 0); // the AuxPoW version flag
    const parentCoinbase = bitcoin.Block.fromBuffer(plain).transactions?.[0]?.toBuffer() as Uint8Array;
    const branch = (n: number) => Buffer.concat([Buffer.from([n]), randomBytes(32 * n), Buffer.alloc(4)]);
    // Proof layout (dogecoin/namecoin CAuxPow): parent coinbase, parent block hash, coinbase branch,
    // chain branch, parent header.
    const proof = Buffer.concat([parentCoinbase, randomBytes(32), branch(3), branch(1), randomBytes(80)]);
    const merged = Buffer.concat([header, proof, plain.subarray(80)]);
    const stripped = bitcoin.Block.fromBuffer(stripAuxPow(merged));
    expect(stripped.transactions?.map((t) => t.getId())).toEqual(f.expected.txids);
    expect(stripped.getId()).toBe(bitcoin.Block.fromBuffer(Buffer.concat([header, plain.subarray(80)])).getId());
    const tx = stripped.transactions?.[5];
    const watched = (tx?.outs ?? []).map((o) => Buffer.from(o.script).toString('hex'));
    const result = detect(frameBlock(400_000n, merged), ctx('dogecoin', 'mainnet', watched));
    expect(new Set(result.transfers.map((t) => t.txHash))).toEqual(new Set([f.expected.txids[5]]));
    // A plain block is left as it is.
    expect(stripAuxPow(plain)).toBe(plain);
  });

  it.each([
    ['bitcoin', 'mainnet', 'bitcoin/btc-mainnet-tx-p2sh-output-056e3d82.json'],
    ['bitcoin', 'testnet', 'bitcoin/btc-testnet-tx-p2wpkh-outputs-24551a58.json'],
    ['dogecoin', 'mainnet', 'dogecoin/doge-mainnet-tx-097ea09b.json'],
    ['dogecoin', 'testnet', 'dogecoin/doge-testnet-tx-43cfbc6d.json'],
  ] as const)('encodes %s %s addresses exactly as the network does (%s)', (chain, network, path) => {
    const f = fixture(path);
    const tx = bitcoin.Transaction.fromHex(f.data.hex ?? f.data);
    expect(tx.getId()).toBe(f.expected.txid);
    const net = utxoNetwork(chain, network);
    for (const o of f.expected.outputs) {
      const out = tx.outs[o.n];
      expect(BigInt(out?.value ?? -1)).toBe(BigInt(o.valueSat));
      expect(addressOfScript(net, out?.script ?? new Uint8Array())).toBe(o.address);
      expect(utxoMatchKey(chain, network, o.address)).toBe(o.scriptPubKeyHex);
      expect(validateUtxoAddress(chain, network, o.address)).toBe(true);
      expect(validateUtxoAddress(chain, network === 'mainnet' ? 'testnet' : 'mainnet', o.address)).toBe(false);
    }
  });

  it('derives BIP-84 (bitcoin) and BIP-44 coin 3 (dogecoin) addresses from the standard test mnemonic', () => {
    const seed = mnemonicToSeed('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about');
    // BIP-84's own test vector.
    expect(deriveUtxoAddress('bitcoin', 'mainnet', seed, 0)).toEqual({
      address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
      matchKey: '0014c0cebcd6c3d3ca8c75dc5ec62ebe55330ef910e2',
      path: "m/84'/0'/0'/0/0",
    });
    const doge = deriveUtxoAddress('dogecoin', 'mainnet', seed, 0);
    expect(doge.path).toBe("m/44'/3'/0'/0/0");
    expect(doge.address).toMatch(/^D/);
    expect(formatUtxoAddress('bitcoin', 'mainnet', 'BC1QCR8TE4KR609GCAWUTMRZA0J4XV80JY8Z306FYU')).toBe(
      'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
    );
  });

  it('converts node amounts (JSON numbers, exponent forms) to base units exactly', () => {
    expect(coinsToUnits('6.932e-05')).toBe(6932n);
    expect(coinsToUnits('150.0')).toBe(15_000_000_000n);
    expect(coinsToUnits('0.00998122')).toBe(998_122n);
    expect(coinsToUnits('21000000')).toBe(2_100_000_000_000_000n);
    expect(coinsToUnits('1E+2')).toBe(10_000_000_000n);
    expect(() => coinsToUnits('0.000000001')).toThrow(/more than 8 decimal places/);
  });
});
