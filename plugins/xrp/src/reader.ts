import { type AssetRef, BaseError, type Balance, type ChainReader, type ReaderOptions, retry, wrongHeightError } from '@walletd/plugin-kit';
import type { RippledError } from 'xrpl';
import { issuedCurrencyKey } from './addresses';
import { issuedValueToUnits } from './issuedAmount';
import { XRP_NETWORK_IDS } from './networks';
import { xrpl } from './sdk';

/** `account_info` as walletd reads it: drops as bigint, the flags and owner count that set the reserve. */
export interface AccountState {
  balance: bigint;
  sequence: number;
  ownerCount: number;
  flags: number;
}

/** The reserve in drops: `base` for the account, `increment` per object it owns (trust lines, offers). */
export interface Reserves {
  base: bigint;
  increment: bigint;
}

export interface SubmitAnswer {
  engineResult: string;
  message: string;
}

export interface TxAnswer {
  found: boolean;
  /** When not found: the node searched every ledger of the range asked (absence is proven). */
  searchedAll?: boolean;
  validated?: boolean;
  ledgerIndex?: bigint;
  tx?: Record<string, unknown>;
  meta?: { TransactionResult: string; delivered_amount?: unknown };
}

/**
 * The XRP Ledger reader, over the real `xrpl` client (WebSocket, API v2). Heights are validated
 * ledger indexes: `head()` is the node's last validated ledger and a ledger the node has not
 * validated is never handed to `detect` (validated ledgers are final: no reorg to follow). Reads
 * are retried after transport failures (`retries`); `submit` never is.
 */
export interface XrpReader extends ChainReader {
  network: string;
  request<T = Record<string, unknown>>(request: Record<string, unknown>, retry?: boolean): Promise<T>;
  validatedIndex(): Promise<bigint>;
  accountState(account: string, ledger?: 'validated' | 'current'): Promise<AccountState | null>;
  trustLineUnits(account: string, currency: string, issuer: string, decimals: number): Promise<bigint>;
  reserves(): Promise<Reserves>;
  /** Drops a reference transaction pays now: `base_fee` and the `open_ledger_fee`. */
  fees(): Promise<{ base: bigint; openLedger: bigint }>;
  submit(blob: string): Promise<SubmitAnswer>;
  tx(hash: string, range?: { min: bigint; max: bigint }): Promise<TxAnswer>;
  networkId(): Promise<number>;
}

const drops = (value: unknown, what: string): bigint => {
  // rippled prints drops as strings (server_state prints integers): never through a fraction.
  if ((typeof value === 'string' && /^\d+$/.test(value)) || (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0))
    return BigInt(value);
  throw new BaseError('node_error', `the node sent ${what} that is not a whole number of drops`);
};

export function createXrpReader(network: string, options: ReaderOptions): XrpReader {
  const client = new (xrpl().Client)(options.rpcUrl, {
    timeout: options.timeoutMs ?? 20_000,
    connectionTimeout: options.timeoutMs ?? 10_000,
  });
  // A client that dropped reconnects by itself; the first call (or one after a failed connect) connects.
  client.on('error', () => undefined);
  let connecting: Promise<void> | null = null;
  const connected = async (): Promise<void> => {
    if (client.isConnected()) return;
    connecting ??= client.connect().finally(() => {
      connecting = null;
    });
    await connecting;
  };
  const attempts = 1 + (options.retries ?? 2);

  // The kit's one retry loop; transient here is what xrpl calls a ConnectionError (not connected,
  // disconnected, timed out). A RippledError is the node's answer and is thrown as it is.
  async function request<T>(req: Record<string, unknown>, retryable = true): Promise<T> {
    try {
      return await retry(
        async () => {
          await connected();
          const response = await client.request(req as any);
          return response.result as T;
        },
        { attempts: retryable ? attempts : 1, isTransient: (e) => e instanceof xrpl().ConnectionError },
      );
    } catch (e) {
      if (e instanceof xrpl().RippledError) throw e;
      throw new BaseError('node_error', `the XRP Ledger node did not answer ${String(req.command)}`, { cause: e });
    }
  }

  const rippledCode = (e: unknown): string | undefined =>
    e instanceof xrpl().RippledError ? ((e.data as { error?: string } | undefined)?.error ?? undefined) : undefined;

  const validatedIndex = async (): Promise<bigint> => {
    const r = await request<{ ledger_index: number; validated?: boolean }>({ command: 'ledger', ledger_index: 'validated' });
    return BigInt(r.ledger_index);
  };

  const accountState = async (account: string, ledger: 'validated' | 'current' = 'validated'): Promise<AccountState | null> => {
    try {
      const r = await request<{ account_data: Record<string, unknown> }>({ command: 'account_info', account, ledger_index: ledger });
      const a = r.account_data;
      return {
        balance: drops(a.Balance, 'a balance'),
        sequence: Number(a.Sequence),
        ownerCount: Number(a.OwnerCount ?? 0),
        flags: Number(a.Flags ?? 0),
      };
    } catch (e) {
      if (rippledCode(e) === 'actNotFound') return null;
      throw e instanceof xrpl().RippledError ? new BaseError('node_error', `account_info: ${e.message}`) : e;
    }
  };

  const reserves = async (): Promise<Reserves> => {
    const r = await request<{ state: { validated_ledger?: { reserve_base: number; reserve_inc: number } } }>({ command: 'server_state' });
    const v = r.state.validated_ledger;
    if (!v) throw new BaseError('node_error', 'the XRP Ledger node has no validated ledger yet');
    return { base: drops(v.reserve_base, 'a base reserve'), increment: drops(v.reserve_inc, 'an owner reserve') };
  };

  const trustLineUnits = async (account: string, currency: string, issuer: string, decimals: number): Promise<bigint> => {
    try {
      const r = await request<{ lines: { account: string; currency: string; balance: string }[] }>({
        command: 'account_lines',
        account,
        peer: issuer,
        ledger_index: 'validated',
      });
      const line = r.lines.find((l) => l.account === issuer && issuedCurrencyKey(`${l.currency}.${issuer}`) === `${currency}.${issuer}`);
      if (!line) return 0n;
      const { units } = issuedValueToUnits(line.balance, decimals);
      return units > 0n ? units : 0n;
    } catch (e) {
      if (rippledCode(e) === 'actNotFound') return 0n;
      throw e;
    }
  };

  let networkIdCache: number | null = null;
  const networkId = async (): Promise<number> => {
    if (networkIdCache !== null) return networkIdCache;
    // The client asks server_info itself when it connects and keeps the network id.
    await connected();
    if (client.networkID !== undefined) {
      networkIdCache = client.networkID;
      return networkIdCache;
    }
    const r = await request<{ info: { network_id?: number } }>({ command: 'server_info' });
    networkIdCache = r.info.network_id ?? 0;
    return networkIdCache;
  };

  return {
    network,
    request,
    validatedIndex,
    accountState,
    reserves,
    trustLineUnits,
    networkId,
    head: validatedIndex,
    finalized: validatedIndex,
    async chainId() {
      const id = await networkId();
      const expected = XRP_NETWORK_IDS[network];
      if (expected !== undefined && id !== expected)
        throw new BaseError('node_error', `the XRP Ledger node serves network_id ${id}, not ${network} (${expected})`);
      return String(id);
    },
    async fetchBlock(height) {
      try {
        const r = await request<{ validated?: boolean }>({
          command: 'ledger',
          ledger_index: Number(height),
          transactions: true,
          expand: true,
        });
        if (r.validated !== true) throw new BaseError('node_error', `ledger ${height} is not validated on the node yet`);
        return new TextEncoder().encode(JSON.stringify(r));
      } catch (e) {
        if (rippledCode(e) === 'lgrNotFound') throw new BaseError('node_error', `the node does not have ledger ${height} (history gap?)`);
        throw e;
      }
    },
    async blockHash(height) {
      try {
        const r = await request<{ ledger_hash: string; ledger_index?: number | string; validated?: boolean }>({
          command: 'ledger',
          ledger_index: Number(height),
        });
        // Checked like a fetched ledger's: a hash of another height would read as a reorg of any depth.
        if (r.ledger_index !== undefined && BigInt(r.ledger_index) !== height)
          throw wrongHeightError(options.name, 'ledger', height, BigInt(r.ledger_index));
        return r.validated === true ? r.ledger_hash : null;
      } catch (e) {
        if (rippledCode(e) === 'lgrNotFound') return null;
        throw e;
      }
    },
    async getBalance(address: string, asset: AssetRef): Promise<Balance> {
      if (asset.contractAddress) {
        const key = issuedCurrencyKey(asset.contractAddress);
        if (!key) throw new BaseError('unknown_asset', `${asset.contractAddress} is not an issued currency`);
        const dot = key.lastIndexOf('.');
        const units = await trustLineUnits(address, key.slice(0, dot), key.slice(dot + 1), asset.decimals);
        return { total: units, spendable: units };
      }
      const [state, reserve] = await Promise.all([accountState(address), reserves()]);
      if (!state) return { total: 0n, spendable: 0n };
      const locked = reserve.base + reserve.increment * BigInt(state.ownerCount);
      return { total: state.balance, spendable: state.balance > locked ? state.balance - locked : 0n };
    },
    async fees() {
      const r = await request<{ drops: { base_fee: string; open_ledger_fee: string } }>({ command: 'fee' });
      return { base: drops(r.drops.base_fee, 'a base fee'), openLedger: drops(r.drops.open_ledger_fee, 'an open-ledger fee') };
    },
    async submit(blob) {
      try {
        const r = await request<{ engine_result: string; engine_result_message: string }>({ command: 'submit', tx_blob: blob }, false);
        return { engineResult: r.engine_result, message: r.engine_result_message };
      } catch (e) {
        if (e instanceof xrpl().RippledError) return { engineResult: rippledCode(e) ?? 'error', message: e.message };
        throw e;
      }
    },
    async tx(hash, range) {
      try {
        const r = await request<Record<string, unknown>>({
          command: 'tx',
          transaction: hash,
          ...(range ? { min_ledger: Number(range.min), max_ledger: Number(range.max) } : {}),
        });
        return {
          found: true,
          validated: r.validated === true,
          ...(r.ledger_index !== undefined ? { ledgerIndex: BigInt(r.ledger_index as number) } : {}),
          tx: (r.tx_json as Record<string, unknown>) ?? r,
          meta: r.meta as TxAnswer['meta'],
        };
      } catch (e) {
        if (rippledCode(e) === 'txnNotFound') {
          const data = (e as RippledError).data as { searched_all?: boolean } | undefined;
          return { found: false, searchedAll: data?.searched_all === true };
        }
        throw e;
      }
    },
    async close() {
      await client.disconnect().catch(() => undefined);
    },
  };
}
