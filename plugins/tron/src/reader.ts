import {
  type AssetRef,
  BaseError,
  type ChainReader,
  type ReaderOptions,
  concatBytes,
  nodeOptionsOf,
  wrongHeightError,
} from '@walletd/plugin-kit';
import { tronHexAddress, tronMatchKey } from './addresses';
import { type TronHttp, createTronHttp } from './tronHttp';

/** A block's identity as the reader needs it for references and expiry. */
export interface TronBlockHead {
  number: bigint;
  blockID: string;
  /** Milliseconds since the epoch (the block's own time). */
  timestamp: number;
}

export interface TronAccountResource {
  freeNetLimit: bigint;
  freeNetUsed: bigint;
  netLimit: bigint;
  netUsed: bigint;
}

/** The Tron reader also exposes what the plugin's own withdrawal verbs need. */
export interface TronReader extends ChainReader {
  http: TronHttp;
  /** The node's head block (`/wallet/getnowblock`). */
  nowBlock(): Promise<TronBlockHead>;
  /** The solidified block (`/walletsolidity/getnowblock`): final. */
  solidBlock(): Promise<TronBlockHead>;
  /** TRX in sun, and whether the account exists at all (a transfer to a new one costs more). */
  account(address: string): Promise<{ exists: boolean; balance: bigint }>;
  /** TRC-20 `balanceOf` through a constant call. */
  trc20Balance(address: string, contract: string): Promise<bigint>;
  /** `/wallet/getchainparameters` as a map (a parameter the node leaves out is 0), cached for a minute. */
  chainParameters(): Promise<Map<string, bigint>>;
  accountResource(address: string): Promise<TronAccountResource>;
}

interface BlockJson {
  blockID?: string;
  block_header?: { raw_data?: { number?: number | string; timestamp?: number | string } };
}

const big = (v: unknown): bigint => {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^-?[0-9]+$/.test(v)) return BigInt(v);
  return 0n;
};

function head(block: BlockJson, what: string): TronBlockHead {
  const raw = block.block_header?.raw_data;
  if (typeof block.blockID !== 'string' || raw?.number === undefined)
    throw new BaseError('node_error', `the node returned no ${what} (is it synced?)`);
  return { number: big(raw.number), blockID: block.blockID, timestamp: Number(big(raw.timestamp)) };
}

/** `balanceOf(address)` calldata parameter: the 20 bytes as a 32-byte word. */
export const addressWord = (address: string): string => tronMatchKey(address).padStart(64, '0');

/**
 * Reads for the follower and the API: `fetchBlock` splices `/wallet/getblockbynum` and
 * `/wallet/gettransactioninfobyblocknum` (one call each, visible=false) into
 * `{"block":…,"infos":…}` without parsing them (the worker parses once; `"internalTransfers":"off"`
 * follows when the chain entry says so); the head is
 * `/wallet/getnowblock`, the finalized height `/walletsolidity/getnowblock` (the solidified block).
 */
export function createTronReader(options: ReaderOptions): TronReader {
  const http = createTronHttp(nodeOptionsOf(options));
  let params: { at: number; value: Map<string, bigint> } | null = null;
  const internalOff = options.internalTransfers === 'off';

  const nowBlock = async () => head(await http.post<BlockJson>('/wallet/getnowblock', {}), 'head block');
  const solidBlock = async () => head(await http.post<BlockJson>('/walletsolidity/getnowblock', {}), 'solidified block');

  async function account(address: string) {
    const a = await http.post<{ address?: string; balance?: unknown }>('/wallet/getaccount', {
      address: tronHexAddress(address),
      visible: false,
    });
    return { exists: typeof a.address === 'string', balance: big(a.balance) };
  }

  async function trc20Balance(address: string, contract: string): Promise<bigint> {
    const r = await http.post<{ result?: { result?: boolean; message?: string }; constant_result?: string[] }>(
      '/wallet/triggerconstantcontract',
      {
        // The caller of a read-only call: the contract's own account, which exists (a deposit
        // address that only ever received tokens is no account yet, and some nodes refuse one).
        owner_address: tronHexAddress(contract),
        contract_address: tronHexAddress(contract),
        function_selector: 'balanceOf(address)',
        parameter: addressWord(address),
        visible: false,
      },
    );
    const word = r.constant_result?.[0];
    if (r.result?.result !== true || typeof word !== 'string' || !/^[0-9a-fA-F]{64}$/.test(word))
      throw new BaseError('node_error', `balanceOf on ${contract} did not answer (${r.result?.message ?? 'no result'})`);
    return BigInt(`0x${word}`);
  }

  const balanceOf = (address: string, asset: AssetRef) =>
    asset.contractAddress === null ? account(address).then((a) => a.balance) : trc20Balance(address, asset.contractAddress);

  return {
    http,
    nowBlock,
    solidBlock,
    account,
    trc20Balance,
    head: async () => (await nowBlock()).number,
    finalized: async () => (await solidBlock()).number,
    fetchBlock: async (height) => {
      const num = Number(height);
      const [block, infos] = await Promise.all([
        http.postRaw('/wallet/getblockbynum', { num }),
        http.postRaw('/wallet/gettransactioninfobyblocknum', { num }),
      ]);
      // The worker reads what the chain entry allows: "off" leaves internal transactions unread.
      return concatBytes(['{"block":', block, ',"infos":', infos, internalOff ? ',"internalTransfers":"off"}' : '}']);
    },
    blockHash: async (height) => {
      const block = await http.post<BlockJson>('/wallet/getblockbynum', { num: Number(height) });
      const number = block.block_header?.raw_data?.number;
      // Checked like a fetched block's: a hash of another height would read as a reorg of any depth.
      if (block.blockID !== undefined && number !== undefined && big(number) !== height)
        throw wrongHeightError(options.name, '/wallet/getblockbynum', height, big(number));
      return block.blockID ?? null;
    },
    // Liquid TRX (staked TRX is not counted) or the token balance; Tron keeps no reserve, so all of it is spendable.
    getBalance: async (address, asset) => {
      const total = await balanceOf(address, asset);
      return { total, spendable: total };
    },
    chainParameters: async () => {
      if (params && Date.now() - params.at < 60_000) return params.value;
      const r = await http.post<{ chainParameter?: { key: string; value?: unknown }[] }>('/wallet/getchainparameters', {});
      const value = new Map((r.chainParameter ?? []).map((p) => [p.key, big(p.value)] as [string, bigint]));
      params = { at: Date.now(), value };
      return value;
    },
    accountResource: async (address) => {
      const r = await http.post<Record<string, unknown>>('/wallet/getaccountresource', {
        address: tronHexAddress(address),
        visible: false,
      });
      return { freeNetLimit: big(r.freeNetLimit), freeNetUsed: big(r.freeNetUsed), netLimit: big(r.NetLimit), netUsed: big(r.NetUsed) };
    },
  };
}
