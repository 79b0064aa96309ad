import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import staticPolkadot from '@polkadot/types-support/metadata/static-polkadot';
import { compactToU8a, hexToU8a, u8aConcat, u8aToHex } from '@polkadot/util';
import { blake2AsHex } from '@polkadot/util-crypto';
import { type DetectContext, type TokenDefinition, type UnsignedWithdrawal, openWalletSecret, chainTableOf } from '@walletd/plugin-kit';
import { createPolkadotPlugin } from './createPolkadotPlugin';

// The native asset as this plugin declares it (no list of chains outside the plugins).
const nativeAsset = (chain: string, network: string) => chainTableOf(createPolkadotPlugin().chains).nativeAsset(chain, network);
import { accountIdOf, derivePolkadotAddress } from './addresses';
import { detect } from './detect';
import { decodeFrame, encodeFrame } from './frame';
import { prepareTransfer } from './prepareTransfer';
import { registryFor } from './runtimeRegistry';
import { feeFromEvents } from './feeFromEvents';
import type { PolkadotPayload } from './payload';
import { createPolkadotWithdrawals } from './verbs';

/**
 * Current Polkadot Asset Hub call and event layouts, offline: the Asset Hub metadata shipped in
 * npm (@substrate/txwrapper-dev 7.4.0, spec 1001002; copied to test/fixtures/polkadot). A
 * transferKeepAlive is prepared and signed by the plugin, read back by polkadot.js' own decoder,
 * and events encoded with that runtime's types are credited and priced as the detector and
 * `verify` read them.
 */
const fixture = JSON.parse(
  readFileSync(join(__dirname, '..', '..', '..', 'test', 'fixtures', 'polkadot', 'asset-hub-polkadot-metadata-1001002.json'), 'utf8'),
);
const KEY = 'statemint/1001002/fixture';
const metadata = hexToU8a(fixture.data.metadataHex);
const registry = registryFor(KEY, metadata);
const secret = openWalletSecret(
  Buffer.from('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'),
);
const source = derivePolkadotAddress(secret.entropy(), 0, 0);
const dest = '12y2M12CHhtZy583XyiaXj2tAHB9bj4PxEazyErDp7yGjfFM';
const GENESIS = '0x68d56f15f85d3136970ec16946040bc1752654e906147f7e43e9d539d7c3de2f'; // Polkadot Asset Hub
const checkpoint = { number: 7_000_000n, hash: `0x${'ab'.repeat(32)}` };
const verbs = createPolkadotWithdrawals();

function unsigned(assetId: number | null, amount: bigint, nonce = 5): UnsignedWithdrawal {
  const p = prepareTransfer(registry, {
    assetId,
    signer: hexToU8a(source.matchKey),
    dest: accountIdOf(dest) as Uint8Array,
    amount,
    nonce,
    checkpoint,
    specVersion: 1001002,
    transactionVersion: 14,
    genesisHash: GENESIS,
  });
  const payload: PolkadotPayload = {
    kind: assetId === null ? 'native' : 'asset',
    assetId,
    source: source.address,
    signer: source.matchKey,
    dest,
    amount: amount.toString(),
    call: u8aToHex(p.call),
    nonce,
    checkpoint: { number: checkpoint.number.toString(), hash: checkpoint.hash },
    lastValidBlock: p.lastValidBlock.toString(),
    specVersion: 1001002,
    transactionVersion: 14,
    genesisHash: GENESIS,
    metadataKey: KEY,
    template: u8aToHex(p.template),
    signatureOffset: p.signatureOffset,
    signingPayload: u8aToHex(p.signingPayload),
  };
  const asset =
    assetId === null
      ? nativeAsset('polkadot', 'mainnet')
      : { key: `polkadot:mainnet:${assetId}`, symbol: 'USDT', decimals: 6, contractAddress: String(assetId) };
  return {
    intent: { chain: 'polkadot', network: 'mainnet', asset, outputs: [{ to: dest, amount }], sources: [source.address] },
    payload,
    fee: 1n,
    sourceAddresses: [source.address],
    expiresAt: { height: p.lastValidBlock },
  };
}

/** An event of this runtime, SCALE-encoded from its own field types. */
function event(pallet: string, name: string, values: unknown[]): Uint8Array {
  const p = registry.metadata.pallets.find((x) => x.name.toString() === pallet);
  if (!p || p.events.isNone) throw new Error(`no ${pallet} events`);
  const variant = registry.lookup.getSiType(p.events.unwrap().type).def.asVariant.variants.find((v) => v.name.toString() === name);
  if (!variant) throw new Error(`no ${pallet}.${name}`);
  return u8aConcat(
    [p.index.toNumber(), variant.index.toNumber()],
    ...variant.fields.map((f, i) => registry.createType(registry.createLookupType(f.type), values[i]).toU8a()),
  );
}
/** `Vec<EventRecord>`, every record in phase ApplyExtrinsic(extrinsic) with no topics. */
const records = (list: [number, Uint8Array][]) =>
  u8aConcat(
    compactToU8a(list.length),
    ...list.map(([extrinsic, e]) => u8aConcat([0], new Uint8Array(new Uint32Array([extrinsic]).buffer), e, [0])),
  );
const dispatchInfo = { weight: { refTime: 1, proofSize: 1 }, class: 'Normal', paysFee: 'Yes' };

describe('transferKeepAlive against the current Polkadot Asset Hub metadata (spec 1001002)', () => {
  it('prepares DOT and asset transfers that polkadot.js decodes as the intent, signed with a mortal era', async () => {
    const dot = unsigned(null, 176_556_075_744n);
    const signed = await verbs.sign(dot, secret, [0]);
    const x = registry.createType('Extrinsic', signed.raw);
    expect(`${x.method.section}.${x.method.method}`).toBe('balances.transferKeepAlive');
    // dest is a MultiAddress::Id (a variant byte, then the account id).
    expect(u8aToHex(x.method.args[0]?.toU8a().subarray(1))).toBe(u8aToHex(accountIdOf(dest) as Uint8Array));
    expect(x.method.args[1]?.toString()).toBe('176556075744');
    expect(u8aToHex(x.signer.toU8a().subarray(1))).toBe(source.matchKey);
    expect(x.era.isMortalEra && x.era.asMortalEra.period.toNumber()).toBe(64);
    expect(x.nonce.toNumber()).toBe(5);
    expect(x.hash.toHex()).toBe(signed.txHash);
    expect(x.isSigned).toBe(true);
    // The signature verifies against the payload polkadot.js itself would have the key sign.
    expect(verbs.checkSigned(dot, signed.raw, dot).signed.txHash).toBe(signed.txHash);

    const usdt = unsigned(1984, 2_500_000n, 6);
    const a = registry.createType('Extrinsic', (await verbs.sign(usdt, secret, [0])).raw);
    expect(`${a.method.section}.${a.method.method}`).toBe('assets.transferKeepAlive');
    expect(a.method.args[0]?.toString()).toBe('1984');
    expect(a.method.args[2]?.toString()).toBe('2500000');
  });

  it('checkSigned accepts only the exact intent, signer and extras', async () => {
    const dot = unsigned(null, 10n ** 10n);
    const signed = await verbs.sign(dot, secret, [0]);
    expect(() => verbs.checkSigned(unsigned(null, 10n ** 10n + 1n), signed.raw, unsigned(null, 10n ** 10n + 1n))).toThrow(/call differs/);
    expect(() => verbs.checkSigned(unsigned(1984, 10n ** 10n), signed.raw)).toThrow(/call differs/);
    expect(() => verbs.checkSigned(unsigned(null, 10n ** 10n, 9), signed.raw)).toThrow(/signed extensions differ/);
    const other = await verbs.sign({ ...dot, payload: { ...(dot.payload as PolkadotPayload) } }, secret, [0]);
    expect(other.raw).not.toBe(signed.raw); // sr25519 signatures are randomised; both verify
    expect(verbs.checkSigned(dot, other.raw).signed.txHash).toBe(blake2AsHex(hexToU8a(other.raw), 256));
    await expect(verbs.sign(dot, secret, [1])).rejects.toThrow(/does not control/);
    expect(() => verbs.checkSigned(dot, '0x1234')).toThrow(/not a signed Polkadot extrinsic/);
  });

  it('credits Balances.Transfer and an allow-listed Assets.Transferred of a successful extrinsic and prices it by TransactionFeePaid', () => {
    const from = hexToU8a(source.matchKey);
    const to = accountIdOf(dest) as Uint8Array;
    const events = records([
      [1, event('Balances', 'Withdraw', [from, 150_000_000n])],
      [1, event('Balances', 'Transfer', [from, to, 176_556_075_744n])],
      [1, event('TransactionPayment', 'TransactionFeePaid', [from, 149_000_000n, 1_000_000n])],
      [1, event('System', 'ExtrinsicSuccess', [dispatchInfo])],
      [2, event('Assets', 'Transferred', [1984, from, to, 2_500_000n])],
      [2, event('Assets', 'Transferred', [1337, from, to, 9n])],
      [2, event('System', 'ExtrinsicSuccess', [dispatchInfo])],
      [3, event('Balances', 'Transfer', [from, to, 1n])], // no outcome: never credited
    ]);
    const USDT: TokenDefinition = { key: 'polkadot:mainnet:1984', symbol: 'USDT', decimals: 6, contractAddress: '1984', matchKey: '1984' };
    const ctx: DetectContext = {
      chain: 'polkadot',
      network: 'mainnet',
      native: nativeAsset('polkadot', 'mainnet'),
      tokens: new Map([['1984', USDT]]),
      watched: { has: (k) => k === u8aToHex(to) },
    };
    const raw = encodeFrame(
      {
        number: '7000001',
        hash: `0x${'01'.repeat(32)}`,
        parentHash: checkpoint.hash,
        specName: 'statemint',
        specVersion: 1001002,
        metadataKey: KEY,
        extrinsics: ['0x0400', '0x0401', '0x0402', '0x0403'],
        events: u8aToHex(events),
      },
      metadata,
    );
    const r = detect(raw, ctx);
    const hash = (extrinsic: string) => blake2AsHex(hexToU8a(extrinsic), 256);
    expect(r.transfers.map((t) => [t.txKey, t.eventIndex, t.assetKey, t.amount, t.from, t.to, t.txHash])).toEqual([
      [`7000001-${hash('0x0401')}`, 1, 'polkadot:mainnet:dot', 176_556_075_744n, source.address, dest, hash('0x0401')],
      [`7000001-${hash('0x0402')}`, 4, 'polkadot:mainnet:1984', 2_500_000n, source.address, dest, hash('0x0402')],
    ]);
    // A runtime upgrade between blocks: the next block's frame names another runtime (the relay
    // chain's metadata from npm here, with other pallet indexes); each block is decoded with its
    // own, the earlier one again after it.
    const other = encodeFrame(
      { ...decodeFrame(raw).header, number: '7000002', metadataKey: 'polkadot/1002005/static', specName: 'polkadot', specVersion: 1002005 },
      hexToU8a(staticPolkadot),
    );
    expect(() => detect(other, ctx)).toThrow(); // these events do not decode with the other runtime's types
    expect(detect(raw, ctx)).toEqual(r);

    const decoded = registry.createType('Vec<EventRecord>', events) as unknown as Parameters<typeof feeFromEvents>[0];
    expect(feeFromEvents(decoded.slice(0, 4), source.matchKey)).toBe(150_000_000n);
  });
});
