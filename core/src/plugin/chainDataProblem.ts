import { CHAIN_NAME, CONTRACT_V3_CHANGES, type ChainDefinition } from '@walletd/plugin-kit';

const NUMERIC_78 = 10n ** 78n - 1n;
const SEE = `(contract 3: ${CONTRACT_V3_CHANGES.join('; ')}; plugins/README.md)`;

/**
 * What is missing or wrong in a chain's declared data, in words naming the field to declare, or
 * undefined. walletd's chain table is built from these declarations alone (`chainTableOf`), so a
 * plugin that leaves one out (a contract-2 plugin written before they existed) is refused here
 * rather than served with a guess.
 */
export function chainDataProblem(c: ChainDefinition): string | undefined {
  const chain = (c as { chain?: unknown }).chain;
  if (typeof chain !== 'string' || !CHAIN_NAME.test(chain))
    return `chain name ${JSON.stringify(chain)} is not of the form ${CHAIN_NAME.source}`;
  const networks = Array.isArray(c.networks) ? c.networks : [];
  if (networks.length === 0) return `${chain} declares no networks`;
  const seen = new Set<string>();
  for (const n of networks) {
    if (typeof n.network !== 'string' || !CHAIN_NAME.test(n.network))
      return `${chain} declares network ${JSON.stringify(n.network)}, not of the form ${CHAIN_NAME.source}`;
    if (seen.has(n.network)) return `${chain} declares network ${n.network} twice`;
    seen.add(n.network);
    if (typeof n.testnet !== 'boolean') return `${chain}/${n.network} does not declare testnet (true or false) ${SEE}`;
    const native = n.native as { symbol?: unknown; decimals?: unknown } | undefined;
    if (
      typeof native?.symbol !== 'string' ||
      !native.symbol ||
      typeof native.decimals !== 'number' ||
      !Number.isInteger(native.decimals) ||
      native.decimals < 0 ||
      native.decimals > 77
    )
      return `${chain}/${n.network} does not declare native {symbol, decimals} (a symbol and whole decimals 0-77) ${SEE}`;
  }
  const ceiling = c.amountCeiling as { native?: unknown; token?: unknown } | undefined;
  for (const kind of ['native', 'token'] as const) {
    const v = ceiling?.[kind];
    if (typeof v !== 'bigint' || v <= 0n || v > NUMERIC_78)
      return `${chain} does not declare amountCeiling.${kind} (a bigint of base units, above 0 and at most 78 digits) ${SEE}`;
  }
  return undefined;
}
