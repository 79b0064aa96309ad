import type { TypeRegistry } from '@polkadot/types';
import type { Codec } from '@polkadot/types/types';
import { hexToU8a } from '@polkadot/util';
import { type AssetRef, type Balance, BaseError, type ChainReader, type ReaderOptions, readerJsonRpcClient } from '@walletd/plugin-kit';
import { accountIdOf } from './addresses';
import { encodeFrame } from './frame';
import { registryFor } from './runtimeRegistry';
import { assetAccountKey, assetDetailsKey, systemAccountKey, systemEventsKey } from './storageKeys';
import { utilCrypto } from './sdk';

export interface Runtime {
  specName: string;
  specVersion: number;
  transactionVersion: number;
  /** Names the metadata in block frames: spec name, version and the bytes' hash. */
  metadataKey: string;
  metadata: Uint8Array;
  registry: TypeRegistry;
}

export interface Header {
  number: bigint;
  hash: string;
  parentHash: string;
}

export interface AccountState {
  nonce: number;
  free: bigint;
  reserved: bigint;
  /** Balance that cannot leave the account (new `frozen`; old runtimes: the larger of misc and fee frozen). */
  frozen: bigint;
  /** The account exists (has a provider or sufficient reference). */
  exists: boolean;
}

export interface PolkadotReader extends ChainReader {
  call<T>(method: string, params: unknown[]): Promise<T>;
  /** A publishing call: one attempt, never repeated on a transport failure. */
  send<T>(method: string, params: unknown[]): Promise<T>;
  genesisHash(): Promise<string>;
  header(hash: string): Promise<Header>;
  finalizedHeader(): Promise<Header>;
  /** The runtime that executes blocks on top of `at` (the state after that block; the best head when absent). */
  runtimeAt(at?: string): Promise<Runtime>;
  account(accountId: Uint8Array, at?: string): Promise<AccountState>;
  /** An account's balance of an assets-pallet asset, 0 when it holds none. */
  assetBalance(assetId: number, accountId: Uint8Array, at?: string): Promise<bigint>;
  /** The asset's `min_balance` and whether it is sufficient (can create an account alone), or null when no such asset exists. */
  assetDetails(assetId: number, at?: string): Promise<{ minBalance: bigint; isSufficient: boolean } | null>;
  existentialDeposit(): Promise<bigint>;
  finalized(): Promise<bigint>;
  /** The hashes of a block's extrinsics, in order (cached by block hash: a block's content never changes). */
  extrinsicHashes(hash: string): Promise<string[]>;
  /** The block's extrinsics (hex) and its `System.Events` value (hex, null when absent). */
  blockContent(hash: string): Promise<{ header: Header; extrinsics: string[]; events: string | null }>;
}

interface RpcHeader {
  number: string;
  parentHash: string;
}

/** A storage entry's value type, from the runtime's own metadata (the layout differs between runtime versions). */
export function storageValueType(registry: TypeRegistry, pallet: string, item: string): string {
  const p = registry.metadata.pallets.find((x) => x.name.toString() === pallet);
  const entry = p?.storage.unwrapOr(null)?.items.find((x) => x.name.toString() === item);
  if (!entry) throw new BaseError('node_error', `the runtime has no ${pallet}.${item} storage`);
  return registry.createLookupType(entry.type.isPlain ? entry.type.asPlain : entry.type.asMap.value);
}

export function constantValue(registry: TypeRegistry, pallet: string, name: string): bigint {
  const p = registry.metadata.pallets.find((x) => x.name.toString() === pallet);
  const c = p?.constants.find((x) => x.name.toString() === name);
  if (!c) throw new BaseError('node_error', `the runtime has no ${pallet}.${name} constant`);
  return BigInt(registry.createType(registry.createLookupType(c.type), c.value.toU8a(true)).toString());
}

/** `Math.max` for bigint. */
const maxBig = (a: bigint, b: bigint): bigint => (a > b ? a : b);

const field = (value: Codec, name: string): bigint | null => {
  const v = (value as unknown as Record<string, Codec | undefined>)[name];
  return v === undefined ? null : BigInt(v.toString());
};

/**
 * JSON-RPC (HTTP) reads for the follower and the withdrawal verbs, through core's client
 * (deadlines, retried reads, lossless numbers). Heights are block numbers; the head is the best
 * block, `finalized()` the GRANDPA finalized head (`chain_getFinalizedHead`). Metadata is fetched
 * once per runtime version (`state_getMetadata`) and cached; storage is read with
 * `state_getStorage` and decoded with the runtime's own types.
 */
export function createPolkadotReader(options: ReaderOptions): PolkadotReader {
  const rpc = readerJsonRpcClient(options, '2.0');
  const call = async <T>(method: string, params: unknown[]): Promise<T> => (await rpc.call<T>(method, params)).result;
  const runtimes = new Map<string, Promise<Runtime>>();
  let genesis: string | undefined;

  async function header(hash: string): Promise<Header> {
    const h = await call<RpcHeader | null>('chain_getHeader', [hash]);
    if (!h) throw new BaseError('node_error', `the node has no block ${hash}`);
    return { number: BigInt(h.number), hash, parentHash: h.parentHash };
  }

  async function runtimeAt(at?: string): Promise<Runtime> {
    const v = await call<{ specName: string; specVersion: number; transactionVersion: number }>('state_getRuntimeVersion', at ? [at] : []);
    const id = `${v.specName}/${v.specVersion}`;
    let runtime = runtimes.get(id);
    if (!runtime) {
      runtime = (async () => {
        const hex = await call<string>('state_getMetadata', at ? [at] : []);
        const metadata = hexToU8a(hex);
        const metadataKey = `${id}/${utilCrypto().blake2AsHex(metadata, 128)}`;
        return {
          specName: v.specName,
          specVersion: Number(v.specVersion),
          transactionVersion: Number(v.transactionVersion),
          metadataKey,
          metadata,
          registry: registryFor(metadataKey, metadata),
        };
      })();
      runtime.catch(() => runtimes.delete(id));
      runtimes.set(id, runtime);
    }
    return runtime;
  }

  async function storage(key: string, at?: string): Promise<string | null> {
    return call<string | null>('state_getStorage', at ? [key, at] : [key]);
  }

  async function account(accountId: Uint8Array, at?: string): Promise<AccountState> {
    const { registry } = await runtimeAt(at);
    const raw = await storage(systemAccountKey(accountId), at);
    if (!raw) return { nonce: 0, free: 0n, reserved: 0n, frozen: 0n, exists: false };
    const info = registry.createType(storageValueType(registry, 'System', 'Account'), hexToU8a(raw)) as unknown as Record<string, Codec>;
    const data = info.data as Codec;
    const frozen = field(data, 'frozen') ?? maxBig(field(data, 'miscFrozen') ?? 0n, field(data, 'feeFrozen') ?? 0n);
    const providers = BigInt((info.providers as Codec).toString());
    const sufficients = BigInt((info.sufficients as Codec | undefined)?.toString() ?? '0');
    return {
      nonce: Number((info.nonce as Codec).toString()),
      free: field(data, 'free') ?? 0n,
      reserved: field(data, 'reserved') ?? 0n,
      frozen,
      exists: providers > 0n || sufficients > 0n,
    };
  }

  async function assetBalance(assetId: number, accountId: Uint8Array, at?: string): Promise<bigint> {
    const { registry } = await runtimeAt(at);
    const raw = await storage(assetAccountKey(assetId, accountId), at);
    if (!raw) return 0n;
    const value = registry.createType(storageValueType(registry, 'Assets', 'Account'), hexToU8a(raw));
    return field(value, 'balance') ?? 0n;
  }

  async function assetDetails(assetId: number, at?: string): Promise<{ minBalance: bigint; isSufficient: boolean } | null> {
    const { registry } = await runtimeAt(at);
    const raw = await storage(assetDetailsKey(assetId), at);
    if (!raw) return null;
    const details = registry.createType(storageValueType(registry, 'Assets', 'Asset'), hexToU8a(raw));
    const sufficient = (details as unknown as Record<string, Codec | undefined>).isSufficient;
    return { minBalance: field(details, 'minBalance') ?? 0n, isSufficient: sufficient?.toString() === 'true' };
  }

  async function existentialDeposit(): Promise<bigint> {
    return constantValue((await runtimeAt()).registry, 'Balances', 'ExistentialDeposit');
  }

  async function blockHash(height: bigint): Promise<string | null> {
    return call<string | null>('chain_getBlockHash', [Number(height)]);
  }

  async function blockContent(hash: string) {
    const b = await call<{ block: { header: RpcHeader; extrinsics: string[] } } | null>('chain_getBlock', [hash]);
    if (!b) throw new BaseError('node_error', `the node has no block ${hash}`);
    const events = await storage(systemEventsKey(), hash);
    return {
      header: { number: BigInt(b.block.header.number), hash, parentHash: b.block.header.parentHash },
      extrinsics: b.block.extrinsics,
      events,
    };
  }

  // `verify` scans the blocks of an era on every poll: each block's hashes are computed once.
  const hashesByBlock = new Map<string, string[]>();
  async function extrinsicHashes(hash: string): Promise<string[]> {
    let hashes = hashesByBlock.get(hash);
    if (!hashes) {
      const b = await call<{ block: { extrinsics: string[] } } | null>('chain_getBlock', [hash]);
      if (!b) throw new BaseError('node_error', `the node has no block ${hash}`);
      hashes = b.block.extrinsics.map((x) => utilCrypto().blake2AsHex(hexToU8a(x), 256));
      if (hashesByBlock.size >= 1024) hashesByBlock.delete(hashesByBlock.keys().next().value as string);
      hashesByBlock.set(hash, hashes);
    }
    return hashes;
  }

  async function getBalance(address: string, asset: AssetRef): Promise<Balance> {
    const id = accountIdOf(address);
    if (!id) throw new BaseError('invalid_address', `"${address}" is not a valid Polkadot address`);
    if (asset.contractAddress === null) {
      const a = await account(id);
      const ed = await existentialDeposit();
      const keep = maxBig(a.frozen, ed);
      return { total: a.free + a.reserved, spendable: a.free > keep ? a.free - keep : 0n };
    }
    const amount = await assetBalance(Number(asset.contractAddress), id);
    return { total: amount, spendable: amount };
  }

  return {
    call,
    send: async <T>(method: string, params: unknown[]) => (await rpc.call<T>(method, params, { idempotent: false })).result,
    genesisHash: async () => {
      genesis ??= await call<string>('chain_getBlockHash', [0]);
      return genesis;
    },
    header,
    finalizedHeader: async () => header(await call<string>('chain_getFinalizedHead', [])),
    runtimeAt,
    account,
    assetBalance,
    assetDetails,
    existentialDeposit,
    blockContent,
    extrinsicHashes,
    getBalance,
    head: async () => BigInt((await call<RpcHeader>('chain_getHeader', [])).number),
    finalized: async () => (await header(await call<string>('chain_getFinalizedHead', []))).number,
    blockHash,
    fetchBlock: async (height) => {
      const hash = await blockHash(height);
      if (!hash) throw new BaseError('node_error', `the node has no block at height ${height} yet`);
      const content = await blockContent(hash);
      // Every block after genesis has events (each applied extrinsic, inherents included, emits
      // its outcome): none means the node no longer has the block's state (pruned). Crediting
      // nothing would lose deposits; the follower retries and reports the chain instead.
      if (content.events === null && height > 0n)
        throw new BaseError(
          'node_error',
          `the node has no System.Events for block ${height} (state pruned?): follow Asset Hub with an archive node`,
        );
      // The runtime that executed this block is the one in its parent's state (genesis: its own).
      const runtime = await runtimeAt(height === 0n ? hash : content.header.parentHash);
      return encodeFrame(
        {
          number: content.header.number.toString(),
          hash,
          parentHash: content.header.parentHash,
          specName: runtime.specName,
          specVersion: runtime.specVersion,
          metadataKey: runtime.metadataKey,
          extrinsics: content.extrinsics,
          events: content.events,
        },
        runtime.metadata,
      );
    },
  };
}
