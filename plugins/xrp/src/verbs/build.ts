import { BaseError, type BuildContext, type UnsignedWithdrawal, type WithdrawalIntent, fromBaseUnits } from '@walletd/plugin-kit';
import { FEE_CAP_DROPS, LEDGER_WINDOW, type PaymentJson, type XrpPayload, xrp } from '../payload';
import { amountJson, issuedOf } from '../paysIntent';
import type { XrpReader } from '../reader';
import { checkXrpIntent } from './checkIntent';

/** rippled's limit on the Memos field. */
const MEMO_LIMIT_BYTES = 1024;
const MEMO_TYPE = Buffer.from('text/plain', 'utf8').toString('hex').toUpperCase();

const LSF_REQUIRE_DEST_TAG = 0x00020000;

function memosOf(memo: string | undefined): PaymentJson['Memos'] {
  if (memo === undefined) return undefined;
  const data = Buffer.from(memo, 'utf8');
  if (data.length + MEMO_TYPE.length / 2 > MEMO_LIMIT_BYTES)
    throw new BaseError('validation_failed', `an XRP memo holds at most ${MEMO_LIMIT_BYTES - MEMO_TYPE.length / 2} bytes of UTF-8`);
  return [{ Memo: { MemoType: MEMO_TYPE, MemoData: data.toString('hex').toUpperCase() } }];
}

export async function buildXrpWithdrawal(intent: WithdrawalIntent, reader: XrpReader, context?: BuildContext): Promise<UnsignedWithdrawal> {
  const source = intent.sources[0];
  if (!source) throw new BaseError('validation_failed', 'a source account is required');
  const r = checkXrpIntent(intent);
  const issued = issuedOf(intent);
  const Memos = memosOf(r.memo);
  const [validated, sender, destination, reserve, fees, networkId] = await Promise.all([
    reader.validatedIndex(),
    reader.accountState(source, 'current'),
    reader.accountState(r.account, 'validated'),
    reader.reserves(),
    reader.fees(),
    reader.networkId(),
  ]);
  if (!sender) throw new BaseError('insufficient_funds', `${source} is not funded on the ledger (it needs at least ${xrp(reserve.base)})`);
  // Pay what gets into the open ledger now, with xrpl.js's 20% cushion, never below the base fee.
  const wanted = (fees.openLedger * 12n + 9n) / 10n;
  const fee = [wanted > fees.base ? wanted : fees.base].map((f) => (f > FEE_CAP_DROPS ? FEE_CAP_DROPS : f))[0] as bigint;
  const locked = reserve.base + reserve.increment * BigInt(sender.ownerCount);
  const spendable = sender.balance > locked ? sender.balance - locked : 0n;
  const needXrp = fee + (issued ? 0n : r.amount);
  if (needXrp > spendable)
    throw new BaseError(
      'insufficient_funds',
      `${source} can spend ${xrp(spendable)} (it holds ${xrp(sender.balance)}, ${xrp(locked)} of which is the reserve) and this needs ${xrp(needXrp)}`,
    );
  if (issued) {
    const held = await reader.trustLineUnits(source, issued.currency, issued.issuer, intent.asset.decimals);
    if (held < r.amount)
      throw new BaseError(
        'insufficient_funds',
        `${source} holds ${fromBaseUnits(held, intent.asset.decimals)} ${intent.asset.symbol}, less than ${fromBaseUnits(r.amount, intent.asset.decimals)}`,
      );
    if (!destination)
      throw new BaseError('unprocessable', `${r.account} has no account on the ledger, so it cannot hold ${intent.asset.symbol}`);
  } else if (!destination && r.amount < reserve.base)
    throw new BaseError(
      'unprocessable',
      `${r.account} has no account on the ledger; a payment that creates it must be at least the base reserve, ${xrp(reserve.base)}`,
    );
  if (destination && r.tag === undefined && (destination.flags & LSF_REQUIRE_DEST_TAG) !== 0)
    throw new BaseError('validation_failed', `${r.account} requires a destination tag (lsfRequireDestTag); give destinationTag`);
  // Keep clear of this wallet's signed, unfinished Payments: the next sequence after theirs.
  let sequence = sender.sequence;
  for (const w of context?.inFlight ?? []) {
    const p = w.payload as XrpPayload | undefined;
    if (p?.tx?.Account === source && p.tx.Sequence >= sequence) sequence = p.tx.Sequence + 1;
  }
  const tx: PaymentJson = {
    TransactionType: 'Payment',
    Account: source,
    Destination: r.account,
    ...(r.tag !== undefined ? { DestinationTag: r.tag } : {}),
    Amount: amountJson(intent, r.amount),
    Fee: fee.toString(),
    Sequence: sequence,
    LastLedgerSequence: Number(validated) + LEDGER_WINDOW,
    ...(Memos ? { Memos } : {}),
    // Networks numbered above 1024 require it in every transaction; the public ones refuse it.
    ...(networkId > 1024 ? { NetworkID: networkId } : {}),
  };
  const payload: XrpPayload = { tx, validatedAtBuild: Number(validated) };
  return { intent, payload, fee, sourceAddresses: [source], expiresAt: { height: BigInt(tx.LastLedgerSequence) } };
}
