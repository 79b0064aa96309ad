import { shippedPlugins } from './chains';
import { createHash } from 'node:crypto';
import {
  type AddressingMode,
  type Chain,
  type ChainCapabilities,
  type DerivedAddress,
  type TokenDefinition,
  type ChainPlugin,
  type ChainReader,
  PLUGIN_API_VERSION,
  type UnsignedWithdrawal,
  type WithdrawalIntent,
} from '@walletd/core';
import { createEvmPlugin } from '@walletd/plugin-evm';

/** What the recording plugin's withdrawal verbs were given, in call order. */
export interface RecordedCalls {
  build: WithdrawalIntent[];
  sign: UnsignedWithdrawal[];
  broadcast: string[];
}

/**
 * A withdrawal test double for a chain the shipped plugins do not serve (XRP devnet by default):
 * it declares the capabilities it is given (memo and destination tag, one recipient), needs no
 * node, and records the intent each verb receives, so a test can prove what reached `build` and
 * `sign`. Addresses are `r` + 24 lowercase hex digits; the payload echoes the intent's outputs
 * (amounts as strings); the "signed" transaction is a hash of the payload. Not a chain: only what
 * the withdrawal path of the service needs.
 */
export function createRecordingPlugin(
  chain: 'xrp' | 'ton' | 'solana' = 'xrp',
  capabilities: ChainCapabilities = { memo: true, destinationTag: true, multipleOutputs: false, feePayer: false },
  /**
   * `addressing` as declared; `reserve` kept back from every balance (spendable = total − reserve);
   * `tokenAccounts`: each owner gets, per token, `t<owner hex without r><first 2 hex of the token>`.
   */
  options: { addressing?: AddressingMode; reserve?: bigint; tokenAccounts?: boolean } = {},
): { plugin: ChainPlugin; calls: RecordedCalls } {
  const calls: RecordedCalls = { build: [], sign: [], broadcast: [] };
  const valid = (address: string) => /^r[0-9a-fA-F]{24}$/.test(address);
  const reader: ChainReader = {
    head: async () => 100n,
    fetchBlock: async () => null,
    blockHash: async () => null,
    getBalance: async () => ({ total: 10n ** 12n, spendable: 10n ** 12n - (options.reserve ?? 0n) }),
  };
  const payloadOf = (intent: WithdrawalIntent) => ({
    outputs: intent.outputs.map((o) => ({ ...o, amount: o.amount.toString() })),
    sources: intent.sources,
  });
  const txHash = (payload: unknown) => createHash('sha256').update(JSON.stringify(payload)).digest('hex');
  const network = chain === 'ton' ? 'testnet' : 'devnet';
  const shipped = shippedPlugins().chainTable();
  const declared = (n: string) => {
    const info = shipped.network(chain, n);
    return { testnet: info?.testnet ?? true, native: info?.native ?? { symbol: 'TEST', decimals: 6 } };
  };
  const plugin: ChainPlugin = {
    apiVersion: PLUGIN_API_VERSION,
    name: `recording-${chain}`,
    chains: [
      {
        chain,
        // The chain data as the shipped plugin for the same chain declares it.
        networks: [{ network, defaultConfirmations: 1, finality: 'confirmations', ...declared(network) }],
        amountCeiling: shipped.ceilings.get(chain) ?? { native: 2n ** 64n, token: 2n ** 64n },
        addressing: options.addressing ?? 'key-per-address',
        capabilities,
      },
    ],
    // Registration loads it; nothing here detects deposits.
    detectModule: createEvmPlugin().detectModule,
    validateAddress: (_c, _n, address) => valid(address),
    matchKey: (_c, _n, address) => {
      if (!valid(address)) throw new Error(`invalid address ${address}`);
      return address.toLowerCase();
    },
    formatAddress: (_c, _n, address) => address.toLowerCase(),
    deriveAddress: (_c, _n, _secret, index) => ({
      address: `r${index.toString(16).padStart(24, '0')}`,
      matchKey: `r${index.toString(16).padStart(24, '0')}`,
      path: `m/0/${index}`,
    }),
    ...(options.tokenAccounts
      ? {
          tokenAccounts: async (_c: Chain, _n: string, owner: DerivedAddress, tokens: readonly TokenDefinition[]) =>
            tokens.map((t) => {
              const address = `t${owner.matchKey.slice(1, 23)}${t.matchKey.slice(-2)}`;
              return { assetKey: t.key, address, matchKey: address };
            }),
        }
      : {}),
    createReader: () => reader,
    confirm: () => [],
    withdrawals: {
      build: async (intent) => {
        calls.build.push(structuredClone(intent));
        const [source] = intent.sources;
        return { intent, payload: payloadOf(intent), fee: 10n, sourceAddresses: source ? [source] : [] };
      },
      sign: async (unsigned) => {
        calls.sign.push(structuredClone(unsigned));
        const raw = JSON.stringify(unsigned.payload);
        return { raw, txHash: txHash(unsigned.payload) };
      },
      checkSigned: (prepared, raw) => {
        const payload = JSON.parse(raw);
        return { signed: { raw, txHash: txHash(payload) }, payload, fee: prepared.fee };
      },
      broadcast: async (signed) => {
        calls.broadcast.push(signed.raw);
      },
      verify: async () => ({ status: 'missing', confirmations: 0 }),
    },
  };
  return { plugin, calls };
}
