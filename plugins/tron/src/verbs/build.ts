import { BaseError, type BuildContext, type UnsignedWithdrawal, type WithdrawalIntent, fromBaseUnits } from '@walletd/plugin-kit';
import { formatTronAddress, tronMatchKey } from '../addresses';
import { checkTronIntent } from './checkIntent';
import { bytesToHex } from '../hex';
import { nodeMessage } from '../nodeMessage';
import { EXPIRATION_MS, SIGNATURE_BYTES, type TronTxPayload, assemble, transferCalldata } from '../payload';
import type { TronReader } from '../reader';

/** Energy estimate headroom: fee_limit = estimate × 13/10 (capped at the network's maximum). */
const FEE_LIMIT_HEADROOM = [13n, 10n] as const;
/** java-tron charges MAX_RESULT_SIZE_IN_TX bytes of bandwidth per contract on top of the transaction's size. */
const RESULT_BYTES = 64;

const trx = (sun: bigint): string => `${fromBaseUnits(sun, 6)} TRX`;

/** Bandwidth a signed transaction of `rawLength` bytes consumes (java-tron: serialized size + 64 per contract). */
export function bandwidthBytes(rawLength: number): bigint {
  const lengthVarint = rawLength < 128 ? 1 : rawLength < 16384 ? 2 : 3;
  return BigInt(1 + lengthVarint + rawLength + 1 + 1 + SIGNATURE_BYTES + RESULT_BYTES);
}

/** The fee bound and its parts, for a transaction of `rawLength` bytes. */
async function feeBound(
  reader: TronReader,
  p: { owner: string; ownerExists: boolean; to: string; kind: 'trx' | 'trc20'; memo?: string },
  rawLength: number,
  feeLimit: bigint,
): Promise<{ fee: bigint; parts: TronTxPayload['feeParts'] }> {
  const [params, resource, recipient] = await Promise.all([
    reader.chainParameters(),
    reader.accountResource(p.owner),
    p.kind === 'trx' ? reader.account(p.to) : Promise.resolve({ exists: true, balance: 0n }),
  ]);
  const bytes = bandwidthBytes(rawLength);
  const perByte = params.get('getTransactionFee') ?? 0n;
  const staked = resource.netLimit - resource.netUsed;
  // An owner that is no account yet (a quote before its gas top-up): the node shows it no resources,
  // but the top-up that activates it leaves it the whole daily free bandwidth (getFreeNetLimit, 600
  // on mainnet), which a TRC-20 transfer (about 345 bytes) fits in. Used, not paid for.
  const free = p.ownerExists ? resource.freeNetLimit - resource.freeNetUsed : (params.get('getFreeNetLimit') ?? 0n);
  let bandwidth = 0n;
  let newAccount = 0n;
  if (!recipient.exists) {
    // Creating the recipient: staked bandwidth covers the creation, or getCreateAccountFee is burned;
    // getCreateNewAccountFeeInSystemContract is charged on top (free bandwidth never pays for it).
    newAccount =
      (staked >= bytes ? 0n : (params.get('getCreateAccountFee') ?? 0n)) + (params.get('getCreateNewAccountFeeInSystemContract') ?? 0n);
  } else if (staked < bytes && free < bytes) {
    bandwidth = bytes * perByte;
  }
  const memo = p.memo !== undefined ? (params.get('getMemoFee') ?? 0n) : 0n;
  const parts = { bandwidth: bandwidth.toString(), newAccount: newAccount.toString(), memo: memo.toString(), energy: feeLimit.toString() };
  return { fee: bandwidth + newAccount + memo + feeLimit, parts };
}

/** fee_limit for a TRC-20 transfer: the node's energy estimate (a constant call of the same transfer) at the energy price, with headroom. */
async function energyFeeLimit(reader: TronReader, owner: string, contract: string, to: string, amount: bigint): Promise<bigint> {
  const r = await reader.http.post<{
    result?: { result?: boolean; message?: string };
    energy_used?: unknown;
    energy_penalty?: unknown;
    constant_result?: string[];
    transaction?: { ret?: { ret?: string }[] };
  }>('/wallet/triggerconstantcontract', {
    owner_address: `41${tronMatchKey(owner)}`,
    contract_address: `41${tronMatchKey(contract)}`,
    function_selector: 'transfer(address,uint256)',
    parameter: bytesToHex(transferCalldata(to, amount)).slice(8),
    visible: false,
  });
  // java-tron reports a revert as result false (CONTRACT_EXE_ERROR), some versions as ret FAILED.
  if (r.result?.result !== true || r.transaction?.ret?.[0]?.ret === 'FAILED') {
    const message = nodeMessage(r.result?.message);
    throw new BaseError('unprocessable', `the token transfer would fail on chain: ${message || 'the call reverts'}`);
  }
  const energy = BigInt(Number(r.energy_used ?? 0)) + BigInt(Number(r.energy_penalty ?? 0));
  const params = await reader.chainParameters();
  const price = params.get('getEnergyFee') ?? 0n;
  const max = params.get('getMaxFeeLimit') ?? 15_000_000_000n;
  let limit = (energy * price * FEE_LIMIT_HEADROOM[0] + FEE_LIMIT_HEADROOM[1] - 1n) / FEE_LIMIT_HEADROOM[1];
  if (limit === 0n) limit = 1n;
  return limit > max ? max : limit;
}

/** A timestamp no in-flight withdrawal from the same source used: two equal intents never share a txID. */
function freshTimestamp(owner: string, context?: BuildContext): number {
  let t = Date.now();
  for (const w of context?.inFlight ?? []) {
    const p = w.payload as Partial<TronTxPayload>;
    if (p.owner === owner && typeof p.timestamp === 'number' && p.timestamp >= t) t = p.timestamp + 1;
  }
  return t;
}

/** The transaction `build` makes and its fee bound, with what the source holds; no check that it can pay. */
export async function quoteTron(
  intent: WithdrawalIntent,
  reader: TronReader,
  context: BuildContext | undefined,
  /** build: refuse a TRC-20 source that is no account (a broadcast one needs it), before the estimate. */
  needsAccount: boolean,
): Promise<{ payload: TronTxPayload; fee: bigint; balance: { exists: boolean; balance: bigint } }> {
  const [output] = intent.outputs;
  const source = intent.sources[0];
  if (!source) throw new BaseError('validation_failed', 'a source address is required');
  checkTronIntent(intent);
  if (!output) throw new BaseError('validation_failed', 'a Tron withdrawal pays exactly one recipient');
  const owner = formatTronAddress(source);
  const to = formatTronAddress(output.to);
  const token = intent.asset.contractAddress;
  const kind: TronTxPayload['kind'] = token ? 'trc20' : 'trx';

  const [now, balance, tokenBalance] = await Promise.all([
    reader.nowBlock(),
    reader.account(owner),
    token ? reader.trc20Balance(owner, token) : Promise.resolve(0n),
  ]);
  // First, so a token amount above the balance reads as that, not as a failed energy estimate.
  if (token && tokenBalance < output.amount)
    throw new BaseError(
      'insufficient_funds',
      `${owner} holds ${fromBaseUnits(tokenBalance, intent.asset.decimals)} ${intent.asset.symbol}, less than the ${fromBaseUnits(output.amount, intent.asset.decimals)} to send`,
    );
  if (needsAccount && token && !balance.exists)
    throw new BaseError(
      'insufficient_funds',
      `${owner} holds no TRX (the account is not activated); a TRC-20 transfer burns TRX for energy and bandwidth: send TRX to it first`,
    );
  // java-tron simulates a constant call for an owner that is no account (only a broadcast one needs
  // it), so the estimate holds for a deposit address before the top-up that activates it.
  const feeLimit = token ? await energyFeeLimit(reader, owner, token, to, output.amount) : 0n;
  const fields = {
    kind,
    owner,
    to,
    amount: output.amount.toString(),
    ...(token ? { contract: formatTronAddress(token) } : {}),
    ...(output.memo !== undefined ? { memo: output.memo } : {}),
    refBlockBytes: (now.number & 0xffffn).toString(16).padStart(4, '0'),
    refBlockHash: now.blockID.slice(16, 32),
    refBlockNumber: now.number.toString(),
    refBlockTime: now.timestamp,
    expiration: now.timestamp + EXPIRATION_MS,
    timestamp: freshTimestamp(owner, context),
    ...(token ? { feeLimit: feeLimit.toString() } : {}),
  };
  const built = assemble(fields);
  const { fee, parts } = await feeBound(
    reader,
    { owner, ownerExists: balance.exists, to, kind, ...(output.memo !== undefined ? { memo: output.memo } : {}) },
    built.bytes.length,
    feeLimit,
  );
  return { payload: { ...fields, feeParts: parts, rawDataHex: bytesToHex(built.bytes), txID: built.txID }, fee, balance };
}

export async function buildTronWithdrawal(
  intent: WithdrawalIntent,
  reader: TronReader,
  context?: BuildContext,
): Promise<UnsignedWithdrawal> {
  const { payload, fee, balance } = await quoteTron(intent, reader, context, true);
  const { owner, kind } = payload;
  // Refused before anything is signed: the node checks only at broadcast, and a failed TRC-20 call still burns its energy.
  const needed = (kind === 'trx' ? BigInt(payload.amount) : 0n) + fee;
  if (balance.balance < needed) {
    throw new BaseError(
      'insufficient_funds',
      kind === 'trx'
        ? `${owner} holds ${trx(balance.balance)}; the amount plus the fee bound is ${trx(needed)} (short by ${trx(needed - balance.balance)})`
        : `${owner} needs up to ${trx(fee)} for energy and bandwidth and holds ${trx(balance.balance)} (short by ${trx(needed - balance.balance)}); send TRX to it first`,
    );
  }
  return { intent, payload, fee, sourceAddresses: [owner], expiresAt: { time: new Date(payload.expiration).toISOString() } };
}

/**
 * The fee bound `build` would set now, whether or not the source can pay it (`WithdrawalVerbs.quoteFee`):
 * what the gas station tops a TRC-20 deposit address up with (plus its margin). For an address that
 * is no account yet, the energy is the node's estimate of the same transfer from it, and its
 * bandwidth is free (see `feeBound`); creating the account is the top-up's own fee, paid by the station.
 */
export async function quoteTronFee(intent: WithdrawalIntent, reader: TronReader): Promise<bigint> {
  return (await quoteTron(intent, reader, undefined, false)).fee;
}
