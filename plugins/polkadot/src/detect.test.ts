import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import staticPolkadot from '@polkadot/types-support/metadata/static-polkadot';
import { hexToU8a, u8aToHex } from '@polkadot/util';
import { decodeAddress } from '@polkadot/util-crypto';
import { type DetectContext, type TokenDefinition, chainTableOf } from '@walletd/plugin-kit';
import { createPolkadotPlugin } from './createPolkadotPlugin';

// The native asset as this plugin declares it (no list of chains outside the plugins).
const nativeAsset = (chain: string, network: string) => chainTableOf(createPolkadotPlugin().chains).nativeAsset(chain, network);
import { detect } from './detect';
import { decodeFrame, encodeFrame } from './frame';
import { registryFor } from './runtimeRegistry';

const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'polkadot');
const fixture = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));
const block = fixture('dot-mainnet-block-18468942.json');
const ext2 = fixture('dot-mainnet-transferkeepalive-4f151b3e.json');
const ext3 = fixture('dot-mainnet-transferkeepalive-6172c095.json');
const key = (address: string): string => u8aToHex(decodeAddress(address));

const USDT: TokenDefinition = { key: 'polkadot:mainnet:1984', symbol: 'USDT', decimals: 6, contractAddress: '1984', matchKey: '1984' };

function ctx(watched: string[], tokens: TokenDefinition[] = []): DetectContext {
  const set = new Set(watched.map(key));
  return {
    chain: 'polkadot',
    network: 'mainnet',
    native: nativeAsset('polkadot', 'mainnet'),
    tokens: new Map(tokens.map((t) => [t.matchKey, t])),
    watched: { has: (k) => set.has(k) },
  };
}

/**
 * The block as the reader frames it. The fixture's block ran Polkadot runtime 1000001; its
 * metadata is not in the fixture, so the frame carries the Polkadot metadata npm ships
 * (@polkadot/types-support `static-polkadot`, spec 1002005), which encodes every event of this
 * block identically: the test asserts all 58 decode and match the source's decoded list.
 */
function frame(events: string | null = block.data.systemEventsHex) {
  const b = block.data.block;
  return encodeFrame(
    {
      number: String(b.header.number),
      hash: '0x1ffece02b91e52c4923827843774f705911905c0a66980f7037bed643b746d1d',
      parentHash: b.header.parentHash,
      specName: 'polkadot',
      specVersion: 1002005,
      metadataKey: 'polkadot/1002005/static',
      extrinsics: b.extrinsics,
      events,
    },
    hexToU8a(staticPolkadot),
  );
}

describe('Polkadot detect on real mainnet data (block 18468942)', () => {
  it('credits the two balances.Transfer events of successful transferKeepAlive extrinsics, exactly', () => {
    const r = detect(
      frame(),
      ctx(['12y2M12CHhtZy583XyiaXj2tAHB9bj4PxEazyErDp7yGjfFM', '12nr7GiDrYHzAYT9L8HdeXnMfWcBuYfAXpgfzf3upujeCciz']),
    );
    expect(r.block).toEqual({
      number: 18468942n,
      hash: '0x1ffece02b91e52c4923827843774f705911905c0a66980f7037bed643b746d1d',
      parentHash: '0xa59330a7420132ea9429939ab5e5b695c5100985af507c6feb29a6fcacfb572e',
    });
    expect(r.transfers).toEqual([
      {
        txHash: '0x4f151b3e1443437bb55460b602fcea37f0f78196e690d7e4522d0cd81facd9d3',
        txKey: '18468942-0x4f151b3e1443437bb55460b602fcea37f0f78196e690d7e4522d0cd81facd9d3',
        eventIndex: 45,
        from: '15gq3Ln9s8jVTyHqwX8WYf8Nwu3maJo946fCHDNS5ePFFZVq',
        fromKey: '0xcf51390d277cc5e610cc285f994239cd96ada5c96b7f9a41576822094ce8dd95',
        to: '12y2M12CHhtZy583XyiaXj2tAHB9bj4PxEazyErDp7yGjfFM',
        toKey: key('12y2M12CHhtZy583XyiaXj2tAHB9bj4PxEazyErDp7yGjfFM'),
        assetKey: 'polkadot:mainnet:dot',
        amount: 176556075744n,
        eventType: 'balances_transfer',
        extra: { extrinsicIndex: 2, blockHash: '0x1ffece02b91e52c4923827843774f705911905c0a66980f7037bed643b746d1d' },
      },
      {
        txHash: '0x6172c09512af2ce39298b449fa4aa37317016447bcb2348825553b64c3c17a92',
        txKey: '18468942-0x6172c09512af2ce39298b449fa4aa37317016447bcb2348825553b64c3c17a92',
        eventIndex: 52,
        from: '12FLicyoTAPLCVv6WgMDBRmezuZqCDKSwjDhXj7cSEe19Asq',
        fromKey: '0x372c0b60c49f3f807a928b94650417fb4c64a2fe3093f7299450c96afc2902be',
        to: '12nr7GiDrYHzAYT9L8HdeXnMfWcBuYfAXpgfzf3upujeCciz',
        toKey: key('12nr7GiDrYHzAYT9L8HdeXnMfWcBuYfAXpgfzf3upujeCciz'),
        assetKey: 'polkadot:mainnet:dot',
        amount: 3499841869031n,
        eventType: 'balances_transfer',
        extra: { extrinsicIndex: 3, blockHash: '0x1ffece02b91e52c4923827843774f705911905c0a66980f7037bed643b746d1d' },
      },
    ]);
    // The fixture's extrinsic files name the same hashes and amounts as the source decoded them.
    expect(ext2.data.extrinsicIndex).toBe(2);
    expect(ext3.data.extrinsicIndex).toBe(3);
    const transfer = (e: { events: { method: string; data: unknown }[] }) => e.events.find((x) => x.method === 'Transfer');
    expect(transfer(ext2.data)).toBeDefined();
    expect(transfer(ext3.data)).toBeDefined();
  });

  it("names another fork's different extrinsic at the same height and position as another transfer", () => {
    // The same height on another fork, extrinsic 2 being other bytes (here: extrinsic 3's) with the
    // same events: the transfer there is not the one recorded from this block.
    const b = block.data.block;
    const forked = encodeFrame(
      {
        ...decodeFrame(frame()).header,
        hash: '0x' + 'ab'.repeat(32),
        extrinsics: b.extrinsics.map((x: string, i: number) => (i === 2 ? b.extrinsics[3] : x)),
      },
      hexToU8a(staticPolkadot),
    );
    const watched = ctx(['12y2M12CHhtZy583XyiaXj2tAHB9bj4PxEazyErDp7yGjfFM']);
    const [here] = detect(frame(), watched).transfers;
    const [there] = detect(forked, watched).transfers;
    expect(there?.extra).toMatchObject({ extrinsicIndex: 2 });
    expect([here?.txKey, here?.eventIndex]).not.toEqual([there?.txKey, there?.eventIndex]);
  });

  it('reports nothing for unwatched recipients, senders, fee receivers or a token that is not allow-listed', () => {
    // The sender, the treasury and the block author receive or pay balances, but only through
    // Withdraw/Deposit events: never a transfer to them.
    const r = detect(
      frame(),
      ctx(
        [
          '15gq3Ln9s8jVTyHqwX8WYf8Nwu3maJo946fCHDNS5ePFFZVq',
          '13UVJyLnbVp9RBZYFwFGyDvVd1y27Tt8tkntv6Q7JVPhFsTB',
          '16A1zLQ3KjMnxch1NAU44hoijFK3fHUjqb11bVgcHCfoj9z3',
        ],
        [USDT],
      ),
    );
    expect(r.transfers).toEqual([]);
  });

  it('is pure and deterministic, and a block without events credits nothing', () => {
    const c = ctx(['12nr7GiDrYHzAYT9L8HdeXnMfWcBuYfAXpgfzf3upujeCciz']);
    const raw = frame();
    expect(detect(raw, c)).toEqual(detect(raw, c));
    expect(detect(frame(null), c).transfers).toEqual([]);
    expect(decodeFrame(raw).header.extrinsics).toHaveLength(4);
  });

  it('decodes all 58 events of the block with the shipped metadata', () => {
    const { header, metadata } = decodeFrame(frame());
    const registry = registryFor(header.metadataKey, metadata);
    const records = registry.createType('Vec<EventRecord>', hexToU8a(header.events as string)) as unknown as unknown[];
    expect(records).toHaveLength(58);
  });
});
