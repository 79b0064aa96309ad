import {
  BaseError,
  type BuildContext,
  type CheckedSignedWithdrawal,
  type SignedWithdrawal,
  type UnsignedWithdrawal,
  type VerifyContext,
  type WalletSecret,
  type WithdrawalIntent,
  type WithdrawalVerbs,
  type WithdrawalVerdict,
  fromBaseUnits,
  refusingUnreadableSigned,
} from '@walletd/plugin-kit';
import { Wallet, decode, deriveAddress, hashes, verifySignature } from 'xrpl';
import { deriveXrpKey, issuedCurrencyKey } from './addresses';
import { checkXrpIntent } from './checkIntent';
import { TF_PARTIAL_PAYMENT, deliveredOf } from './detect';
import { issuedValueToUnits, unitsToIssuedValue } from './issuedAmount';
import { recipientOf } from './recipient';
import type { XrpReader } from './xrpReader';

/** An issued-currency amount as a Payment carries it. */
export interface IssuedAmountJson {
  currency: string;
  issuer: string;
  value: string;
}

/** The Payment exactly as signed (`SigningPubKey` and `TxnSignature` are added by `sign`). */
export interface PaymentJson {
  TransactionType: 'Payment';
  Account: string;
  Destination: string;
  DestinationTag?: number;
  Amount: string | IssuedAmountJson;
  Fee: string;
  Sequence: number;
  LastLedgerSequence: number;
  Memos?: { Memo: { MemoType: string; MemoData: string } }[];
  NetworkID?: number;
}

export interface XrpPayload {
  tx: PaymentJson;
  /** The validated ledger when it was built: `verify` proves absence from there to `LastLedgerSequence`. */
  validatedAtBuild: number;
}

/** How many ledgers a built Payment stays valid (xrpl.js autofill uses the same): about 80 s. */
export const LEDGER_WINDOW = 20;
/**
 * The most a Payment may pay in fee (drops): 0.1 XRP, 10,000 times the 10-drop reference. When the
 * open-ledger fee is higher (the network is flooded) the Payment is built at the cap and queues; it
 * lands or expires at `LastLedgerSequence`.
 */
export const FEE_CAP_DROPS = 100_000n;
/** rippled's limit on the Memos field. */
const MEMO_LIMIT_BYTES = 1024;
const LSF_REQUIRE_DEST_TAG = 0x00020000;
const MEMO_TYPE = Buffer.from('text/plain', 'utf8').toString('hex').toUpperCase();

const xrp = (drops: bigint): string => `${fromBaseUnits(drops, 6)} XRP`;
const payloadOf = (u: UnsignedWithdrawal): XrpPayload => u.payload as XrpPayload;

function issuedOf(intent: WithdrawalIntent): { currency: string; issuer: string } | null {
  if (!intent.asset.contractAddress) return null;
  const key = issuedCurrencyKey(intent.asset.contractAddress);
  if (!key) throw new BaseError('unknown_asset', `${intent.asset.contractAddress} is not an issued currency`);
  const dot = key.lastIndexOf('.');
  return { currency: key.slice(0, dot), issuer: key.slice(dot + 1) };
}

function memosOf(memo: string | undefined): PaymentJson['Memos'] {
  if (memo === undefined) return undefined;
  const data = Buffer.from(memo, 'utf8');
  if (data.length + MEMO_TYPE.length / 2 > MEMO_LIMIT_BYTES)
    throw new BaseError('validation_failed', `an XRP memo holds at most ${MEMO_LIMIT_BYTES - MEMO_TYPE.length / 2} bytes of UTF-8`);
  return [{ Memo: { MemoType: MEMO_TYPE, MemoData: data.toString('hex').toUpperCase() } }];
}

function memoText(tx: Record<string, unknown>): string | undefined {
  const memos = tx.Memos as { Memo: { MemoData?: string } }[] | undefined;
  if (!memos || memos.length === 0) return undefined;
  if (memos.length !== 1 || memos[0]?.Memo.MemoData === undefined) return '\u0000unreadable';
  return Buffer.from(memos[0].Memo.MemoData, 'hex').toString('utf8');
}

function amountJson(intent: WithdrawalIntent, amount: bigint): string | IssuedAmountJson {
  const issued = issuedOf(intent);
  if (!issued) return amount.toString();
  return { currency: issued.currency, issuer: issued.issuer, value: unitsToIssuedValue(amount, intent.asset.decimals) };
}

/** Equal amounts: drops as strings, issued values as base units of the asset (the ledger may print "10" for "10.0"). */
function sameAmount(intent: WithdrawalIntent, expected: bigint, actual: unknown): boolean {
  const issued = issuedOf(intent);
  if (!issued) return typeof actual === 'string' && /^\d+$/.test(actual) && BigInt(actual) === expected;
  if (typeof actual !== 'object' || actual === null) return false;
  const a = actual as IssuedAmountJson;
  if (issuedCurrencyKey(`${a.currency}.${a.issuer}`) !== `${issued.currency}.${issued.issuer}`) return false;
  const { units, exact } = issuedValueToUnits(a.value, intent.asset.decimals);
  return exact && units === expected;
}

/** The first way a Payment differs from the intent (signed elsewhere, or read back from the ledger). */
function differenceFromIntent(intent: WithdrawalIntent, tx: Record<string, unknown>): string | null {
  const r = recipientOf(intent);
  if (tx.TransactionType !== 'Payment') return `it is a ${String(tx.TransactionType)}, not a Payment`;
  if (tx.Account !== intent.sources[0]) return `it is sent by ${String(tx.Account)}, not ${intent.sources[0]}`;
  if (tx.Destination !== r.account) return `it pays ${String(tx.Destination)}, not ${r.account}`;
  if (tx.DestinationTag !== r.tag) return `its destination tag is ${String(tx.DestinationTag ?? 'absent')}, not ${r.tag ?? 'absent'}`;
  if (!sameAmount(intent, r.amount, tx.Amount ?? tx.DeliverMax)) return 'it pays another amount or asset';
  if (((Number(tx.Flags ?? 0) >>> 0) & TF_PARTIAL_PAYMENT) !== 0) return 'it sets the partial-payment flag';
  for (const field of ['SendMax', 'DeliverMin', 'Paths'] as const)
    if (tx[field] !== undefined) return `it carries ${field} (a cross-currency payment)`;
  if (memoText(tx) !== r.memo) return 'its memo differs';
  return null;
}

export function createXrpWithdrawals(): WithdrawalVerbs<XrpReader> {
  return refusingUnreadableSigned('XRP Ledger transaction', {
    checkIntent: (intent) => {
      checkXrpIntent(intent);
    },
    async build(intent: WithdrawalIntent, reader: XrpReader, context?: BuildContext): Promise<UnsignedWithdrawal> {
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
      if (!sender)
        throw new BaseError('insufficient_funds', `${source} is not funded on the ledger (it needs at least ${xrp(reserve.base)})`);
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
    },

    async sign(unsigned: UnsignedWithdrawal, secret: WalletSecret, derivationIndexes: number[]): Promise<SignedWithdrawal> {
      const { tx } = payloadOf(unsigned);
      const difference = differenceFromIntent(unsigned.intent, tx as unknown as Record<string, unknown>);
      if (difference) throw new BaseError('internal', `the stored Payment does not pay its intent: ${difference}`);
      const seed = secret.seed();
      let key: { publicKey: string; privateKey: string };
      try {
        key = deriveXrpKey(seed, derivationIndexes[0] ?? 0);
      } finally {
        seed.fill(0);
      }
      const wallet = new Wallet(key.publicKey, key.privateKey);
      if (wallet.classicAddress !== tx.Account) throw new BaseError('internal', 'the derived key does not control the source account');
      const { tx_blob, hash } = wallet.sign({ ...tx } as Parameters<Wallet['sign']>[0]);
      return { raw: tx_blob, txHash: hash };
    },

    checkSigned(prepared: UnsignedWithdrawal, raw: string, fresh?: UnsignedWithdrawal): CheckedSignedWithdrawal {
      let tx: Record<string, unknown>;
      try {
        tx = decode(raw) as Record<string, unknown>;
      } catch {
        throw new BaseError('unprocessable', 'the signed transaction is not an XRP Ledger transaction blob');
      }
      const refuse = (what: string): never => {
        throw new BaseError('unprocessable', `the signed transaction does not pay the prepared withdrawal: ${what}`);
      };
      const difference = differenceFromIntent(prepared.intent, tx);
      if (difference) refuse(difference);
      if (typeof tx.SigningPubKey !== 'string' || tx.SigningPubKey === '') refuse('it is not single-signed');
      if (!verifySignature(raw)) refuse('its signature does not verify');
      // A valid signature by any key is not enough: walletd's accounts have no regular key, so only the master key signs for them.
      if (deriveAddress(tx.SigningPubKey as string) !== tx.Account)
        refuse(`it is signed by a key that does not control ${String(tx.Account)}`);
      if (typeof tx.LastLedgerSequence !== 'number') refuse('it has no LastLedgerSequence, so it would never expire');
      const fee = BigInt(String(tx.Fee));
      if (fee > FEE_CAP_DROPS) refuse(`its fee ${xrp(fee)} is above the cap ${xrp(FEE_CAP_DROPS)}`);
      const { SigningPubKey: _p, TxnSignature: _s, ...unsignedFields } = tx;
      const validatedAtBuild = payloadOf(fresh ?? prepared).validatedAtBuild;
      return {
        signed: { raw, txHash: hashes.hashSignedTx(raw) },
        payload: { tx: unsignedFields as unknown as PaymentJson, validatedAtBuild } satisfies XrpPayload,
        fee,
        expiresAt: { height: BigInt(tx.LastLedgerSequence as number) },
      };
    },

    async broadcast(signed: SignedWithdrawal, reader: XrpReader): Promise<void> {
      const { engineResult, message } = await reader.submit(signed.raw);
      const text = `${engineResult}: ${message}`;
      // tes/tec: applied to the open ledger (a tec claims the fee; verify reports it failed).
      // ter: held for a later ledger (terQUEUED, terPRE_SEQ). tefALREADY: the node has these bytes.
      if (/^(tes|tec|ter)/.test(engineResult) || engineResult === 'tefALREADY') return;
      if (engineResult === 'tefPAST_SEQ') {
        // Re-sending bytes already applied says so too: idempotent when the ledger has this hash.
        const known = await reader.tx(signed.txHash);
        if (known.found) return;
        throw new BaseError('conflict', `the account's sequence was used by another transaction; prepare it again (${text})`);
      }
      if (engineResult === 'tefMAX_LEDGER') throw new BaseError('conflict', `the Payment expired before the node took it (${text})`);
      if (engineResult.startsWith('tel')) throw new BaseError('node_error', `the node did not take the Payment now (${text})`);
      throw new BaseError('unprocessable', `the node refused the Payment (${text})`);
    },

    async verify(unsigned: UnsignedWithdrawal, txHash: string, reader: XrpReader, _context?: VerifyContext): Promise<WithdrawalVerdict> {
      const { tx, validatedAtBuild } = payloadOf(unsigned);
      const validated = await reader.validatedIndex();
      const lastLedger = BigInt(tx.LastLedgerSequence);
      const range = validated > lastLedger ? { min: BigInt(validatedAtBuild), max: lastLedger } : undefined;
      const found = await reader.tx(txHash, range);
      if (!found.found) {
        // A validated ledger past LastLedgerSequence without it: it can never be included.
        if (range && found.searchedAll) return { status: 'rejected', confirmations: 0, reason: 'expired' };
        return { status: range ? 'pending' : 'missing', confirmations: 0 };
      }
      if (!found.validated || found.ledgerIndex === undefined || !found.meta) return { status: 'pending', confirmations: 0 };
      const fee = BigInt(String(found.tx?.Fee ?? tx.Fee));
      const blockNumber = found.ledgerIndex;
      const confirmations = Number(validated - blockNumber + 1n);
      if (found.meta.TransactionResult !== 'tesSUCCESS')
        return { status: 'rejected', confirmations, fee, blockNumber, reason: 'failed_on_chain' };
      const r = recipientOf(unsigned.intent);
      const paid = found.tx ?? {};
      // Another account's transaction (or not a Payment) under this hash is not this withdrawal.
      if (paid.TransactionType !== 'Payment' || paid.Account !== (unsigned.sourceAddresses[0] ?? unsigned.intent.sources[0]))
        return { status: 'pending', confirmations: 0, blockNumber };
      // Another destination, tag or amount: mined, but not this intent. Pending like every chain
      // (contract `verify`): the reservation stays, and rejecting would release funds that moved.
      if (
        paid.Destination !== r.account ||
        paid.DestinationTag !== r.tag ||
        // delivered_amount (absent only in ledgers before 2014: then Amount, unless partial).
        !sameAmount(unsigned.intent, r.amount, deliveredOf(paid as never, found.meta as never))
      )
        return { status: 'pending', confirmations: 0, blockNumber };
      return { status: 'confirmed', confirmations, fee, blockNumber };
    },
  });
}
