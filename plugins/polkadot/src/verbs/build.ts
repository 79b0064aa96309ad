import { hexToU8a, u8aConcat, u8aToHex } from '@polkadot/util';
import { BaseError, type BuildContext, type UnsignedWithdrawal, type WithdrawalIntent } from '@walletd/plugin-kit';
import { accountIdOf, isAssetId } from '../addresses';
import type { PolkadotPayload } from '../payload';
import type { PolkadotReader } from '../reader';
import { prepareTransfer } from '../prepareTransfer';

/** `Math.max` for bigint. */
const maxBig = (a: bigint, b: bigint): bigint => (a > b ? a : b);

/** A SCALE u32 (little-endian whatever the host). */
function u32le(n: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n, true);
  return out;
}

/** A transfer prepared and its fee bound quoted, with what `build` checks the source's funds against. */
interface Draft {
  unsigned: UnsignedWithdrawal;
  /** The source's spendable DOT (free less the larger of its frozen balance and the ED). */
  spendable: bigint;
  /** The source's balance of the asset (assets only). */
  heldAsset: bigint;
}

/**
 * The fee bound a transfer would carry now, as `build` sets it, without asking that the source
 * can pay it (the gas station's quote for a deposit address holding no DOT).
 */
export async function quotePolkadotFee(intent: WithdrawalIntent, reader: PolkadotReader): Promise<bigint> {
  return (await draftPolkadotWithdrawal(intent, reader, undefined, true)).unsigned.fee;
}

/**
 * What the source keeps beyond the fee: its existential deposit (or a larger freeze). DOT goes
 * with `transferKeepAlive` and fees are charged keeping the account alive, so a sweep leaves it
 * and a top-up of an address with no DOT brings it (a DOT transfer below it to an empty account
 * is refused by the runtime).
 */
export async function keptOnPolkadotSource(intent: WithdrawalIntent, reader: PolkadotReader): Promise<bigint> {
  const signer = accountIdOf(intent.sources[0] ?? '');
  if (!signer) throw new BaseError('invalid_address', `"${intent.sources[0]}" is not a valid Polkadot address`);
  const [ed, from] = await Promise.all([reader.existentialDeposit(), reader.account(signer)]);
  return maxBig(from.frozen, ed);
}

export async function buildPolkadotWithdrawal(
  intent: WithdrawalIntent,
  reader: PolkadotReader,
  context?: BuildContext,
): Promise<UnsignedWithdrawal> {
  const { unsigned, spendable, heldAsset } = await draftPolkadotWithdrawal(intent, reader, context);
  const { fee } = unsigned;
  const amount = (intent.outputs[0] as { amount: bigint }).amount;
  const assetId = (unsigned.payload as PolkadotPayload).assetId;
  if (assetId === null) {
    if (spendable < amount + fee)
      throw new BaseError('insufficient_funds', `insufficient funds: ${spendable} spendable, ${amount + fee} needed with the fee`);
  } else {
    if (spendable < fee) throw new BaseError('insufficient_funds', `insufficient funds for the fee: ${spendable} spendable, ${fee} needed`);
    if (heldAsset < amount)
      throw new BaseError('insufficient_funds', `insufficient funds: ${heldAsset} of asset ${assetId} held, ${amount} needed`);
  }
  return unsigned;
}

/** `quoting`: the fee only (a quote for a one-unit transfer skips the recipient's minimums). */
async function draftPolkadotWithdrawal(
  intent: WithdrawalIntent,
  reader: PolkadotReader,
  context?: BuildContext,
  quoting = false,
): Promise<Draft> {
  const output = intent.outputs[0];
  if (!output || intent.outputs.length !== 1) throw new BaseError('validation_failed', 'a Polkadot withdrawal pays exactly one recipient');
  if (output.amount <= 0n) throw new BaseError('invalid_amount', 'the amount must be positive');
  const source = intent.sources[0] as string;
  const signer = accountIdOf(source);
  const dest = accountIdOf(output.to);
  if (!signer) throw new BaseError('invalid_address', `"${source}" is not a valid Polkadot address`);
  if (!dest) throw new BaseError('invalid_address', `"${output.to}" is not a valid Polkadot address`);
  const contract = intent.asset.contractAddress;
  if (contract !== null && !isAssetId(contract)) throw new BaseError('unknown_asset', `"${contract}" is not an asset id`);
  const assetId = contract === null ? null : Number(contract);

  const checkpoint = await reader.finalizedHeader();
  const runtime = await reader.runtimeAt(checkpoint.hash);
  const { registry } = runtime;
  const genesisHash = await reader.genesisHash();
  const ed = await reader.existentialDeposit();
  const from = await reader.account(signer);
  const to = await reader.account(dest);

  if (!quoting) await checkRecipient(reader, assetId, dest, output.amount, to.exists, ed);

  // The next nonce after the wallet's own signed, not yet final withdrawals from this source.
  let nonce = from.nonce;
  for (const u of context?.inFlight ?? []) {
    const p = u.payload as Partial<PolkadotPayload>;
    if (p.signer === u8aToHex(signer) && typeof p.nonce === 'number' && p.nonce >= nonce) nonce = p.nonce + 1;
  }

  const heldAsset = assetId === null ? 0n : await reader.assetBalance(assetId, signer);
  const prepared = prepareTransfer(registry, {
    assetId,
    // All of an asset leaves with `assets.transfer`: keep-alive would refuse to take the source's
    // asset balance below its minimum (a sweep would fail on chain, its fee burnt, every run).
    keepAlive: assetId === null || output.amount < heldAsset,
    signer,
    dest,
    amount: output.amount,
    nonce,
    checkpoint,
    specVersion: runtime.specVersion,
    transactionVersion: runtime.transactionVersion,
    genesisHash,
  });
  const { template } = prepared;

  const info = await reader.call<string>('state_call', [
    'TransactionPaymentApi_query_info',
    u8aToHex(u8aConcat(template, u32le(template.length))),
  ]);
  // RuntimeDispatchInfo { weight, class, partial_fee: u128 }: the fee is the last 16 bytes (LE)
  // whatever the weight's encoding (u64 before TransactionPaymentApi v2, Weight v2 after).
  const infoBytes = hexToU8a(info);
  let partialFee = 0n;
  for (let i = infoBytes.length - 1; i >= infoBytes.length - 16; i--) partialFee = (partialFee << 8n) | BigInt(infoBytes[i] as number);
  const fee = partialFee * 2n;

  const keep = maxBig(from.frozen, ed);
  const spendable = from.free > keep ? from.free - keep : 0n;

  const { lastValidBlock } = prepared;
  const payload: PolkadotPayload = {
    kind: assetId === null ? 'native' : 'asset',
    assetId,
    source,
    signer: u8aToHex(signer),
    dest: output.to,
    amount: output.amount.toString(),
    call: u8aToHex(prepared.call),
    nonce,
    checkpoint: { number: checkpoint.number.toString(), hash: checkpoint.hash },
    lastValidBlock: lastValidBlock.toString(),
    specVersion: runtime.specVersion,
    transactionVersion: runtime.transactionVersion,
    genesisHash,
    metadataKey: runtime.metadataKey,
    template: u8aToHex(template),
    signatureOffset: prepared.signatureOffset,
    signingPayload: u8aToHex(prepared.signingPayload),
  };
  return { unsigned: { intent, payload, fee, sourceAddresses: [source], expiresAt: { height: lastValidBlock } }, spendable, heldAsset };
}

/** What the runtime would refuse on the recipient's side: an amount below its minimums. */
async function checkRecipient(
  reader: PolkadotReader,
  assetId: number | null,
  dest: Uint8Array,
  amount: bigint,
  exists: boolean,
  ed: bigint,
): Promise<void> {
  if (assetId === null) {
    if (!exists && amount < ed)
      throw new BaseError(
        'unprocessable',
        `the recipient account does not exist and ${amount} is below the existential deposit (${ed}): the runtime would refuse it`,
      );
  } else {
    const details = await reader.assetDetails(assetId);
    if (details === null) throw new BaseError('unknown_asset', `asset ${assetId} does not exist on this network`);
    const held = await reader.assetBalance(assetId, dest);
    if (held === 0n && amount < details.minBalance)
      throw new BaseError(
        'unprocessable',
        `the recipient holds no asset ${assetId} and ${amount} is below its minimum balance (${details.minBalance})`,
      );
    // A non-sufficient asset cannot be the only thing keeping an account alive.
    if (held === 0n && !details.isSufficient && !exists)
      throw new BaseError('unprocessable', `the recipient account does not exist and asset ${assetId} cannot create it: send it DOT first`);
  }
}
