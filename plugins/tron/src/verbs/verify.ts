import type { UnsignedWithdrawal, VerifyContext, WithdrawalOutput, WithdrawalVerdict } from '@walletd/plugin-kit';
import { tronMatchKey } from '../addresses';
import { TRANSFER_TOPIC } from '../detect';
import { payloadOf } from '../payload';
import type { TronReader } from '../reader';

interface TronTxJson {
  txID?: string;
  ret?: { contractRet?: string }[];
  raw_data?: {
    contract?: { type?: string; parameter?: { value?: { owner_address?: unknown; to_address?: unknown; amount?: unknown } } }[];
    data?: unknown;
  };
}

const sameAccount = (nodeHex: unknown, address: string): boolean =>
  typeof nodeHex === 'string' && /^41[0-9a-fA-F]{40}$/.test(nodeHex) && nodeHex.slice(2).toLowerCase() === tronMatchKey(address);

/**
 * One TransferContract from the source to the output's recipient for exactly its amount (the node
 * sends the amount as a JSON integer, parsed losslessly: a number only when exact), carrying the
 * output's memo when it has one.
 */
function paysIntent(tx: TronTxJson, source: string, output: WithdrawalOutput): boolean {
  const contracts = tx.raw_data?.contract ?? [];
  const contract = contracts[0];
  if (contracts.length !== 1 || contract?.type !== 'TransferContract') return false;
  const value = contract.parameter?.value ?? {};
  const amount = value.amount;
  const exact =
    (typeof amount === 'number' && Number.isSafeInteger(amount) && BigInt(amount) === output.amount) ||
    (typeof amount === 'string' && /^[0-9]+$/.test(amount) && BigInt(amount) === output.amount);
  const data = typeof tx.raw_data?.data === 'string' ? tx.raw_data.data.toLowerCase() : '';
  const memo = output.memo !== undefined ? Buffer.from(output.memo, 'utf8').toString('hex') : '';
  return exact && sameAccount(value.owner_address, source) && sameAccount(value.to_address, output.to) && data === memo;
}

/**
 * Paid only when included, successful and the intent: a TRX transfer from the source to the
 * recipient for the exact amount (and memo) whose `contractRet` is SUCCESS, a TRC-20
 * call whose receipt result is SUCCESS and that emitted the matching Transfer log (the
 * intent's contract, from the source, to the recipient, the exact amount; without it the
 * withdrawal stays pending). Reverted, out of energy or any other failure: `failed_on_chain`,
 * with the fee it burned. Not in a block and not in the node's pool: `expired` once the
 * solidified block is past its expiration (a final view), else `missing` (sent again). The
 * fee is TransactionInfo.fee: every sun burned (energy, bandwidth, account creation, memo).
 */
export async function verifyTronWithdrawal(
  unsigned: UnsignedWithdrawal,
  txHash: string,
  reader: TronReader,
  context?: VerifyContext,
): Promise<WithdrawalVerdict> {
  const info = await reader.http.post<{
    id?: string;
    blockNumber?: unknown;
    fee?: unknown;
    result?: string;
    receipt?: { result?: string; energy_fee?: unknown; net_fee?: unknown };
    log?: { address?: string; topics?: string[]; data?: string }[];
  }>('/wallet/gettransactioninfobyid', { value: txHash });
  if (info.id !== undefined && info.blockNumber !== undefined) {
    const blockNumber = BigInt(info.blockNumber as number | string);
    const fee =
      info.fee !== undefined
        ? BigInt(info.fee as number | string)
        : BigInt((info.receipt?.energy_fee as number) ?? 0) + BigInt((info.receipt?.net_fee as number) ?? 0);
    const p = payloadOf(unsigned);
    const source = unsigned.sourceAddresses[0] ?? p.owner;
    const [output] = unsigned.intent.outputs;
    const token = unsigned.intent.asset.contractAddress;
    const failed = { status: 'rejected' as const, confirmations: 0, fee, blockNumber, reason: 'failed_on_chain' as const };
    if (info.result === 'FAILED') return failed;
    if (!output) return { status: 'pending', confirmations: 0, blockNumber };
    if (token) {
      if (info.receipt?.result !== 'SUCCESS') return failed;
      const contract = tronMatchKey(token);
      const from = tronMatchKey(source).padStart(64, '0');
      const to = tronMatchKey(output.to).padStart(64, '0');
      const paid = (info.log ?? []).some(
        (l) =>
          l.address?.toLowerCase() === contract &&
          l.topics?.length === 3 &&
          l.topics[0]?.toLowerCase() === TRANSFER_TOPIC &&
          l.topics[1]?.toLowerCase() === from &&
          l.topics[2]?.toLowerCase() === to &&
          typeof l.data === 'string' &&
          /^[0-9a-fA-F]{64}$/.test(l.data) &&
          BigInt(`0x${l.data}`) === output.amount,
      );
      if (!paid) return { status: 'pending', confirmations: 0, blockNumber };
    } else {
      const tx = await reader.http.post<TronTxJson>('/wallet/gettransactionbyid', { value: txHash });
      // Success alone would confirm any mined transaction under this hash (the conformance kit's
      // "mined but not the intent"): the transaction itself must pay the intent.
      if (tx.txID === undefined || !paysIntent(tx, source, output)) return { status: 'pending', confirmations: 0, blockNumber };
      if (tx.ret?.[0]?.contractRet !== 'SUCCESS') return failed;
    }
    const head = await reader.head();
    return { status: 'confirmed', confirmations: Number(head - blockNumber + 1n), fee, blockNumber };
  }
  // Not in a block: in the node's pool, or gone (expired for good, or still able to land).
  const pending = await reader.http
    .post<{ txID?: string }>('/wallet/gettransactionfrompending', { value: txHash })
    .catch(() => ({}) as { txID?: string });
  if (pending.txID !== undefined) return { status: 'pending', confirmations: 0 };
  const expiration = payloadOf(unsigned).expiration;
  const solid = await reader.solidBlock();
  if (solid.timestamp > expiration) return { status: 'rejected', confirmations: 0, reason: context?.seenInBlock ? 'reorg' : 'expired' };
  return { status: 'missing', confirmations: 0 };
}
