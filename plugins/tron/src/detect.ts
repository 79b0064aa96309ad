import { BaseError, type DetectContext, type DetectResult, type DetectedTransfer, parseLossless } from '@walletd/plugin-kit';
import { type TronInternalTxJson, internalTransfers } from './internalTransfers';

/**
 * The raw Tron block a follower hands to a worker: the bytes of
 * `{"block": <POST /wallet/getblockbynum {"num":n}>, "infos": <POST /wallet/gettransactioninfobyblocknum {"num":n}>}`,
 * both with visible=false (hex addresses), spliced by the reader without parsing them, and
 * `"internalTransfers":"off"` after them when the chain entry says so (internal transactions unread).
 */
interface TronContractJson {
  type?: string;
  parameter?: { value?: Record<string, unknown>; type_url?: string };
}
interface TronTxJson {
  txID?: string;
  ret?: { contractRet?: string }[];
  raw_data?: { contract?: TronContractJson[]; data?: string };
}
interface TronBlockJson {
  blockID?: string;
  block_header?: { raw_data?: { number?: number | string; parentHash?: string; timestamp?: number | string } };
  transactions?: TronTxJson[];
}
interface TronLogJson {
  address?: string;
  topics?: string[];
  data?: string;
}
interface TronInfoJson {
  id?: string;
  blockNumber?: number | string;
  blockTimeStamp?: number | string;
  receipt?: { result?: string };
  log?: TronLogJson[];
  internal_transactions?: TronInternalTxJson[];
}

/** keccak256("Transfer(address,address,uint256)"), as Tron logs carry it: hex without 0x. */
export const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

const HEX41 = /^41[0-9a-fA-F]{40}$/;
const HEX20 = /^[0-9a-fA-F]{40}$/;
const WORD = /^[0-9a-fA-F]{64}$/;
const decoder = new TextDecoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * An amount in sun as the node sent it: a JSON integer, which `parseLossless` leaves a number only
 * when a double holds it exactly, else hands over as its decimal text. Anything else (a fraction,
 * an exponent, a negative) is not an amount.
 */
function integer(value: unknown): bigint | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : null;
  if (typeof value === 'string' && /^[0-9]+$/.test(value)) return BigInt(value);
  return null;
}

/** raw_data.data as text, when it is valid UTF-8 (a memo); otherwise nothing. */
function memoOf(tx: TronTxJson): Record<string, unknown> | undefined {
  const data = tx.raw_data?.data;
  if (typeof data !== 'string' || data.length === 0 || data.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(data)) return undefined;
  try {
    return { memo: strictUtf8.decode(Buffer.from(data, 'hex')) };
  } catch {
    return undefined;
  }
}

/**
 * Pure and deterministic; no address is encoded here (the main thread formats what matched).
 * Credited, each once:
 * - a `TransferContract` (native TRX) to a watched address whose `ret[0].contractRet` is SUCCESS:
 *   `eventIndex` 0, `amount` in sun;
 * - a `Transfer(from, to, value)` log of an allow-listed TRC-20 contract to a watched address, in a
 *   transaction whose block `contractRet` and receipt `result` are both SUCCESS: `eventIndex`
 *   1 + the log's position in the transaction's log list (stable if the transaction is included
 *   again in another block);
 * - TRX a contract sent to a watched address (an entry of the info's `internal_transactions`, which
 *   java-tron keeps with `vm.saveInternalTx = true`) that is not `rejected`, in a transaction whose
 *   `contractRet` and receipt `result` are both SUCCESS: `eventIndex` INTERNAL_EVENT_BASE
 *   (1 000 000 000) + the entry's position in that list (see internalTransfers.ts).
 * Never credited: a log from any other contract (a look-alike named "USDT" included), a reverted or
 * out-of-energy call (its receipt result is REVERT, OUT_OF_ENERGY, …), a `transfer` call that
 * emitted no log, calldata that names the address (calldata is never read), a zero amount (address
 * poisoning sends those), a rejected internal transaction, and TRC-10 assets.
 */
export function detect(raw: Uint8Array, ctx: DetectContext): DetectResult {
  const parsed = parseLossless(decoder.decode(raw)) as {
    block?: TronBlockJson;
    infos?: TronInfoJson[] | Record<string, never>;
    internalTransfers?: string;
  };
  const readInternal = parsed.internalTransfers !== 'off';
  const block = parsed.block ?? {};
  const header = block.block_header?.raw_data;
  const number = integer(header?.number);
  if (typeof block.blockID !== 'string' || number === null || typeof header?.parentHash !== 'string')
    throw new BaseError('node_answer_invalid', 'the node returned no block (a height it does not have yet)');
  const transactions = block.transactions ?? [];
  const infos = Array.isArray(parsed.infos) ? parsed.infos : [];
  // Block and infos are two requests: a load balancer or a switch to another fork can answer them
  // from different blocks. Refuse the pair rather than miss a receipt or read another fork's (the
  // follower retries). An info names no block hash, so the block is told by what it does carry:
  // the height, the block's timestamp (a fork's block at the same height is made in another slot)
  // and one info for each of the block's transactions (the same count alone pairs other blocks).
  if (infos.length !== transactions.length)
    throw new BaseError(
      'node_answer_invalid',
      `block ${number} has ${transactions.length} transactions but ${infos.length} transaction infos`,
    );
  const time = integer(header.timestamp);
  const txIds = new Set(transactions.map((tx) => tx.txID));
  const byId = new Map<string, TronInfoJson>();
  for (const info of infos) {
    if (
      integer(info.blockNumber) !== number ||
      time === null ||
      integer(info.blockTimeStamp) !== time ||
      !txIds.has(info.id) ||
      byId.has(info.id as string)
    )
      throw new BaseError('node_answer_invalid', `the transaction infos of block ${number} (${block.blockID}) belong to another block`);
    byId.set(info.id as string, info);
  }

  const transfers: DetectedTransfer[] = [];
  const { watched, tokens } = ctx;
  const anyToken = tokens.size > 0;
  for (const tx of transactions) {
    const txHash = tx.txID;
    if (typeof txHash !== 'string') throw new BaseError('node_answer_invalid', `block ${number} has a transaction without txID`);
    // Without SUCCESS the transaction moved nothing (only its fee was paid).
    if (tx.ret?.[0]?.contractRet !== 'SUCCESS') continue;
    const contracts = tx.raw_data?.contract ?? [];
    if (contracts.length !== 1) continue;
    const contract = contracts[0] as TronContractJson;
    const value = contract.parameter?.value ?? {};

    if (contract.type === 'TransferContract') {
      const to = value.to_address;
      if (typeof to === 'string' && HEX41.test(to)) {
        const toKey = to.slice(2).toLowerCase();
        if (watched.has(toKey)) {
          const amount = integer(value.amount);
          const owner = value.owner_address;
          if (amount !== null && amount > 0n) {
            const extra = memoOf(tx);
            transfers.push({
              txHash,
              eventIndex: 0,
              ...(typeof owner === 'string' && HEX41.test(owner)
                ? { from: owner.slice(2).toLowerCase(), fromKey: owner.slice(2).toLowerCase() }
                : {}),
              to: toKey,
              toKey,
              assetKey: ctx.native.key,
              amount,
              eventType: 'native_transfer',
              ...(extra ? { extra } : {}),
            });
          }
        }
      }
      continue;
    }

    // Logs and internal transactions come from TVM execution: a TriggerSmartContract, or a
    // constructor (CreateSmartContract). Whatever the type, only the allow-listed contract's own
    // log counts.
    if (!anyToken && !readInternal) continue;
    const info = byId.get(txHash);
    if (!info) throw new BaseError('node_answer_invalid', `block ${number} lacks the transaction info of ${txHash}`);
    if (info.receipt?.result !== 'SUCCESS') continue;
    if (readInternal && Array.isArray(info.internal_transactions))
      transfers.push(...internalTransfers(info.internal_transactions, txHash, ctx, memoOf(tx)));
    if (!anyToken) continue;
    const logs = info.log ?? [];
    for (let i = 0; i < logs.length; i++) {
      const log = logs[i] as TronLogJson;
      const topics = log.topics;
      if (topics?.length !== 3 || topics[0]?.toLowerCase() !== TRANSFER_TOPIC) continue;
      if (typeof log.address !== 'string' || !HEX20.test(log.address)) continue;
      const token = tokens.get(log.address.toLowerCase());
      if (!token) continue;
      const toWord = topics[2] as string;
      const fromWord = topics[1] as string;
      if (!WORD.test(toWord) || !WORD.test(fromWord) || typeof log.data !== 'string' || !WORD.test(log.data)) continue;
      const toKey = toWord.slice(24).toLowerCase();
      if (!watched.has(toKey)) continue;
      const amount = BigInt(`0x${log.data}`);
      if (amount === 0n) continue;
      const extra = memoOf(tx);
      transfers.push({
        txHash,
        eventIndex: i + 1,
        from: fromWord.slice(24).toLowerCase(),
        fromKey: fromWord.slice(24).toLowerCase(),
        to: toKey,
        toKey,
        assetKey: token.key,
        amount,
        eventType: 'trc20_transfer',
        ...(extra ? { extra } : {}),
      });
    }
  }
  // The header's time is in milliseconds; BlockRef's in seconds.
  const timestamp = time !== null ? { timestamp: Number(time / 1000n) } : {};
  return { block: { number, hash: block.blockID, parentHash: header.parentHash, ...timestamp }, transfers };
}
