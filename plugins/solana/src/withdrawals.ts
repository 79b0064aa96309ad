import { createPublicKey, verify as edVerify } from 'node:crypto';
import {
  type Address,
  type Instruction,
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getAddressEncoder,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
  type SignatureBytes,
  type Transaction,
} from '@solana/kit';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { getTransferSolInstruction } from '@solana-program/system';
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
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
  refusingUnreadableSigned,
} from '@walletd/core';
import { signEd25519, solanaKey } from './addresses';
import { checkSolanaIntent } from './checkIntent';
import { type MessageSummary, base58, summarizeMessage } from './message';
import { nodeRefusal } from './nodeRefusal';
import {
  LAMPORTS_PER_SIGNATURE,
  SYSTEM_ACCOUNT_SIZE,
  TOKEN_2022_ACCOUNT_SIZE,
  TOKEN_2022_PROGRAM,
  TOKEN_ACCOUNT_SIZE,
  parseTokenContract,
} from './programs';
import type { SolanaReader } from './solanaReader';
import { associatedTokenAccount } from './tokenAccounts';

/** The unsigned transaction a Solana withdrawal carries (JSON-safe: amounts as decimal strings). */
export interface SolanaTxPayload {
  kind: 'sol' | 'token';
  /** The compiled v0 message, base64: what every signer signs. */
  message: string;
  blockhash: string;
  /** The last block height (not slot) at which the blockhash is valid. */
  lastValidBlockHeight: string;
  feePayer: string;
  source: string;
  recipient: string;
  amount: string;
  mint?: string;
  tokenProgram?: string;
  sourceTokenAccount?: string;
  recipientTokenAccount?: string;
  /** Lamports the fee payer puts into the recipient's new associated token account ("0": it exists). */
  accountRent: string;
  computeUnitLimit: number;
  /** Micro-lamports per compute unit. */
  computeUnitPrice: string;
  /** The message's signers in order (the fee payer first). */
  signers: string[];
}

/** Compute unit limits with headroom over what each instruction set costs on mainnet. */
const CU = { sol: 1_000, token: 12_000, tokenCreate: 45_000, token2022: 25_000, token2022Create: 80_000 } as const;
/** The priority fee is the 75th percentile of recent fees on the written accounts, capped. */
const MAX_CU_PRICE = 5_000_000n;

const payloadOf = (u: UnsignedWithdrawal) => u.payload as SolanaTxPayload;
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** Lamports the transaction can cost its fee payer: signatures, the priority fee (rounded up), and the new account's rent. */
export function maxFee(signers: number, cuLimit: number, cuPrice: bigint, accountRent: bigint): bigint {
  return LAMPORTS_PER_SIGNATURE * BigInt(signers) + (BigInt(cuLimit) * cuPrice + 999_999n) / 1_000_000n + accountRent;
}

async function priorityFee(reader: SolanaReader, accounts: string[]): Promise<bigint> {
  let fees: { prioritizationFee: number | string }[] = [];
  try {
    fees = await reader.call<{ prioritizationFee: number | string }[]>('getRecentPrioritizationFees', [accounts]);
  } catch {
    return 0n;
  }
  const sorted = fees.map((f) => BigInt(f.prioritizationFee)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (sorted.length === 0) return 0n;
  const p75 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.75))] as bigint;
  return p75 > MAX_CU_PRICE ? MAX_CU_PRICE : p75;
}

interface Plan {
  kind: 'sol' | 'token';
  source: string;
  feePayer: string;
  recipient: string;
  amount: bigint;
  mint?: string;
  tokenProgram?: string;
  decimals?: number;
  sourceTokenAccount?: string;
  recipientTokenAccount?: string;
  accountRent: bigint;
  cuLimit: number;
  cuPrice: bigint;
  blockhash: string;
  lastValidBlockHeight: bigint;
}

function compile(p: Plan): { messageBytes: Uint8Array; signers: string[] } {
  const ixs: Instruction[] = [
    getSetComputeUnitLimitInstruction({ units: p.cuLimit }),
    getSetComputeUnitPriceInstruction({ microLamports: p.cuPrice }),
  ];
  const source = createNoopSigner(address(p.source));
  if (p.kind === 'sol') {
    ixs.push(getTransferSolInstruction({ source, destination: address(p.recipient), amount: p.amount }));
  } else {
    const programAddress = address(p.tokenProgram as string);
    if (p.accountRent > 0n)
      ixs.push(
        getCreateAssociatedTokenIdempotentInstruction({
          payer: createNoopSigner(address(p.feePayer)),
          ata: address(p.recipientTokenAccount as string),
          owner: address(p.recipient),
          mint: address(p.mint as string),
          tokenProgram: programAddress,
        }),
      );
    ixs.push(
      getTransferCheckedInstruction(
        {
          source: address(p.sourceTokenAccount as string),
          mint: address(p.mint as string),
          destination: address(p.recipientTokenAccount as string),
          authority: source,
          amount: p.amount,
          decimals: p.decimals as number,
        },
        { programAddress },
      ),
    );
  }
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address(p.feePayer), m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash({ blockhash: p.blockhash as Blockhash, lastValidBlockHeight: p.lastValidBlockHeight }, m),
    (m) => appendTransactionMessageInstructions(ixs, m),
  );
  const tx = compileTransaction(message);
  return { messageBytes: new Uint8Array(tx.messageBytes), signers: Object.keys(tx.signatures) };
}

function toPayload(p: Plan, messageBytes: Uint8Array, signers: string[]): SolanaTxPayload {
  return {
    kind: p.kind,
    message: b64(messageBytes),
    blockhash: p.blockhash,
    lastValidBlockHeight: p.lastValidBlockHeight.toString(),
    feePayer: p.feePayer,
    source: p.source,
    recipient: p.recipient,
    amount: p.amount.toString(),
    ...(p.kind === 'token'
      ? {
          mint: p.mint as string,
          tokenProgram: p.tokenProgram as string,
          sourceTokenAccount: p.sourceTokenAccount as string,
          recipientTokenAccount: p.recipientTokenAccount as string,
        }
      : {}),
    accountRent: p.accountRent.toString(),
    computeUnitLimit: p.cuLimit,
    computeUnitPrice: p.cuPrice.toString(),
    signers,
  };
}

function verifySignature(signer: string, message: Uint8Array, signature: Uint8Array): boolean {
  const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(getAddressEncoder().encode(address(signer)))]);
  try {
    return edVerify(null, message, createPublicKey({ key: spki, format: 'der', type: 'spki' }), signature);
  } catch {
    return false;
  }
}

/** The first difference between what was signed and what the withdrawal pays, or null. */
function difference(signed: MessageSummary, p: SolanaTxPayload, expected: MessageSummary): string | null {
  if (signed.unknown.length > 0) return `it carries instructions a withdrawal does not: ${signed.unknown.join(', ')}`;
  const t = signed.transfer;
  if (!t) return 'it pays nobody';
  const kind = t.mint === undefined ? 'sol' : 'token';
  if (kind !== p.kind)
    return `it moves ${kind === 'sol' ? 'SOL' : `token ${t.mint}`} instead of ${p.kind === 'sol' ? 'SOL' : `token ${p.mint}`}`;
  if (kind === 'token' && (t.mint !== p.mint || t.program !== p.tokenProgram)) return `it moves mint ${t.mint} instead of ${p.mint}`;
  const to = kind === 'sol' ? p.recipient : p.recipientTokenAccount;
  if (t.to !== to) return `it pays ${t.to} instead of ${to}`;
  if (t.amount !== BigInt(p.amount)) return `it pays ${t.amount} base units instead of ${p.amount}`;
  const from = kind === 'sol' ? p.source : p.sourceTokenAccount;
  if (t.from !== from) return `it spends from ${t.from} instead of ${from}`;
  if (kind === 'token' && t.authority !== p.source) return `it is authorised by ${t.authority} instead of the source ${p.source}`;
  if (kind === 'token' && t.decimals !== expected.transfer?.decimals) return `its decimals ${t.decimals} differ`;
  if (signed.feePayer !== p.feePayer) return `its fee payer is ${signed.feePayer} instead of ${p.feePayer}`;
  if (JSON.stringify(signed.createsAccount) !== JSON.stringify(expected.createsAccount))
    return signed.createsAccount ? 'it creates an account the withdrawal does not' : "it does not create the recipient's token account";
  if (signed.blockhash !== p.blockhash) return `its blockhash ${signed.blockhash} is not the prepared one ${p.blockhash}`;
  return null;
}

/**
 * SOL and SPL withdrawals, one recipient each, through the five verbs.
 *
 * - **Validity**: a recent blockhash (`confirmed`); the transaction can land until the block
 *   height passes its `lastValidBlockHeight` (kept in the payload). `verify` answers `rejected`
 *   `expired` once the node's `finalized` block height is past it and the signature is unknown.
 *   `expiresAt.height` is in the follower's unit, slots: the earliest slot at which the blockhash
 *   can have expired (the slot of the blockhash's answer plus the blocks it had left; a slot makes
 *   at most one block), so the tracker re-sends a missing transaction only while it surely can
 *   still land, and never after.
 * - **Fees**: 5 000 lamports a signature plus a priority fee (the 75th percentile of recent fees
 *   on the written accounts, capped) for a fixed compute-unit limit; `fee` is that bound plus the
 *   rent of the recipient's associated token account when the transaction creates it. `verify`
 *   reports the exact `meta.fee` plus that rent when it was paid.
 * - **Rent**: a SOL withdrawal leaves the source at least its rent-exempt minimum; a new recipient
 *   account must receive at least its own.
 * - **Fee payer** (capability `feePayer`): a SOL withdrawal's source pays its own fee. A token
 *   withdrawal's fee (and the new account's rent) is paid by the first of the intent's sources that
 *   can: the source itself when it holds the SOL, otherwise the wallet's other addresses in
 *   derivation order (the service lists them after the chosen source), so a deposit address that
 *   holds only tokens is paid for by the wallet's primary address. Both sign; `sourceAddresses` is
 *   `[source, feePayer]`.
 * - Concurrent withdrawals need no nonce; two identical ones within one blockhash would be one
 *   transaction, so a build never repeats the message of an in-flight withdrawal (its compute-unit
 *   limit goes up by one until it differs).
 */
export function createSolanaWithdrawals(): WithdrawalVerbs<SolanaReader> {
  return refusingUnreadableSigned('Solana transaction', {
    checkIntent: checkSolanaIntent,
    async build(intent: WithdrawalIntent, reader: SolanaReader, context?: BuildContext): Promise<UnsignedWithdrawal> {
      checkSolanaIntent(intent);
      const [output] = intent.outputs;
      const source = intent.sources[0];
      if (!output) throw new BaseError('validation_failed', 'a Solana withdrawal pays exactly one recipient');
      if (!source) throw new BaseError('validation_failed', 'a source address is required');
      if (output.amount <= 0n) throw new BaseError('invalid_amount', 'the amount must be positive');
      const keepSystem = await reader.rentExemptMinimum(SYSTEM_ACCOUNT_SIZE);
      const [latest, blockHeight] = await Promise.all([
        reader.call<{ context: { slot: number | string }; value: { blockhash: string; lastValidBlockHeight: number | string } }>(
          'getLatestBlockhash',
          [{ commitment: 'confirmed' }],
        ),
        reader.call<number | string>('getBlockHeight', [{ commitment: 'confirmed' }]),
      ]);
      const lastValidBlockHeight = BigInt(latest.value.lastValidBlockHeight);
      const left = lastValidBlockHeight - BigInt(blockHeight);
      const expirySlot = BigInt(latest.context.slot) + (left > 0n ? left : 0n);
      const token = intent.asset.contractAddress;
      let plan: Plan;
      if (token === null) {
        const [balance, recipientBalance] = await Promise.all([reader.lamports(source), reader.lamports(output.to)]);
        if (recipientBalance === 0n && output.amount < keepSystem)
          throw new BaseError(
            'invalid_amount',
            `${output.to} holds no SOL yet: a payment to it must be at least its rent-exempt minimum, ${keepSystem} lamports`,
          );
        const cuPrice = await priorityFee(reader, [source, output.to]);
        plan = {
          kind: 'sol',
          source,
          feePayer: source,
          recipient: output.to,
          amount: output.amount,
          accountRent: 0n,
          cuLimit: CU.sol,
          cuPrice,
          blockhash: latest.value.blockhash,
          lastValidBlockHeight,
        };
        const fee = maxFee(1, plan.cuLimit, cuPrice, 0n);
        if (balance < output.amount + fee + keepSystem)
          throw new BaseError(
            'insufficient_funds',
            `${source} holds ${balance} lamports: too little for ${output.amount} plus the fee (${fee}) and its rent-exempt minimum (${keepSystem})`,
          );
      } else {
        const { mint, program } = parseTokenContract(token);
        const [sourceTokenAccount, recipientTokenAccount] = await Promise.all([
          associatedTokenAccount(source, mint, program),
          associatedTokenAccount(output.to, mint, program),
        ]);
        const [held, recipientHeld] = await Promise.all([
          reader.tokenAmount(sourceTokenAccount),
          reader.tokenAmount(recipientTokenAccount),
        ]);
        if ((held ?? 0n) < output.amount)
          throw new BaseError(
            'insufficient_funds',
            `${source} holds ${held ?? 0n} of ${intent.asset.symbol} in ${sourceTokenAccount}: too little`,
          );
        const creates = recipientHeld === null;
        const accountRent = creates
          ? await reader.rentExemptMinimum(program === TOKEN_2022_PROGRAM ? TOKEN_2022_ACCOUNT_SIZE : TOKEN_ACCOUNT_SIZE)
          : 0n;
        const cuLimit =
          program === TOKEN_2022_PROGRAM ? (creates ? CU.token2022Create : CU.token2022) : creates ? CU.tokenCreate : CU.token;
        const cuPrice = await priorityFee(reader, [sourceTokenAccount, recipientTokenAccount]);
        // The fee payer: the first source that can pay the fee and the new account's rent and keep its own minimum.
        let feePayer: string | undefined;
        for (const candidate of intent.sources) {
          const signers = candidate === source ? 1 : 2;
          const need = maxFee(signers, cuLimit, cuPrice, accountRent) + keepSystem;
          if ((await reader.lamports(candidate)) >= need) {
            feePayer = candidate;
            break;
          }
        }
        if (!feePayer)
          throw new BaseError(
            'insufficient_funds',
            `no address of the wallet holds the SOL for the fee${creates ? " and the recipient's token account rent" : ''} (${maxFee(2, cuLimit, cuPrice, accountRent)} lamports above the rent-exempt minimum): fund the primary address`,
          );
        plan = {
          kind: 'token',
          source,
          feePayer,
          recipient: output.to,
          amount: output.amount,
          mint,
          tokenProgram: program,
          decimals: intent.asset.decimals,
          sourceTokenAccount,
          recipientTokenAccount,
          accountRent,
          cuLimit,
          cuPrice,
          blockhash: latest.value.blockhash,
          lastValidBlockHeight,
        };
      }
      // Never the same bytes as a withdrawal in flight: they would be one transaction.
      const taken = new Set((context?.inFlight ?? []).map((w) => (w.payload as SolanaTxPayload | null)?.message));
      let compiled = compile(plan);
      while (taken.has(b64(compiled.messageBytes))) {
        plan = { ...plan, cuLimit: plan.cuLimit + 1 };
        compiled = compile(plan);
      }
      const payload = toPayload(plan, compiled.messageBytes, compiled.signers);
      return {
        intent,
        payload,
        fee: maxFee(compiled.signers.length, plan.cuLimit, plan.cuPrice, plan.accountRent),
        sourceAddresses: plan.feePayer === source ? [source] : [source, plan.feePayer],
        expiresAt: { height: expirySlot },
      };
    },

    async sign(unsigned: UnsignedWithdrawal, secret: WalletSecret, derivationIndexes: number[]): Promise<SignedWithdrawal> {
      const p = payloadOf(unsigned);
      const messageBytes = new Uint8Array(Buffer.from(p.message, 'base64'));
      const seed = secret.seed();
      const keys = new Map<string, ReturnType<typeof solanaKey>['key']>();
      try {
        for (const index of derivationIndexes) {
          const k = solanaKey(seed, index);
          keys.set(k.address, k.key);
        }
      } finally {
        seed.fill(0);
      }
      const signatures: Record<string, SignatureBytes> = {};
      for (const signer of p.signers) {
        const key = keys.get(signer);
        if (!key) throw new Error(`no derived key controls the signer ${signer}`);
        signatures[signer] = signEd25519(key, messageBytes) as SignatureBytes;
      }
      const tx = { messageBytes, signatures } as unknown as Transaction;
      return { raw: getBase64EncodedWireTransaction(tx), txHash: base58(signatures[p.signers[0] as string] as Uint8Array) };
    },

    /**
     * A transaction signed elsewhere is accepted only when it is a walletd withdrawal paying
     * exactly the intent: the same transfer (SOL or the mint, recipient or its associated token
     * account, amount, source and authority), the same fee payer and account creation, the
     * blockhash of the prepared or the fresh build (its validity limit is then known), every
     * signature present and valid. The compute-unit price is the signer's, up to twice the fee bound.
     */
    checkSigned(prepared: UnsignedWithdrawal, raw: string, fresh?: UnsignedWithdrawal): CheckedSignedWithdrawal {
      let tx: Transaction;
      let summary: MessageSummary;
      try {
        tx = getTransactionDecoder().decode(new Uint8Array(Buffer.from(raw, 'base64')));
        summary = summarizeMessage(new Uint8Array(tx.messageBytes));
      } catch (e) {
        throw new BaseError(
          'unprocessable',
          `signedTransaction is not a base64 wire-format Solana transaction: ${(e as Error).message.slice(0, 160)}`,
        );
      }
      const refuse = (what: string): never => {
        throw new BaseError('unprocessable', `the signed transaction does not pay the prepared withdrawal: ${what}`);
      };
      const candidates = [fresh, prepared].filter((u): u is UnsignedWithdrawal => u !== undefined);
      const match = candidates.find((u) => payloadOf(u).blockhash === summary.blockhash) ?? candidates[0] ?? prepared;
      const p = payloadOf(match);
      const expected = summarizeMessage(new Uint8Array(Buffer.from(p.message, 'base64')));
      const diff = difference(summary, p, expected);
      if (diff) refuse(diff);
      for (const signer of summary.signers) {
        const signature = tx.signatures[signer as Address];
        if (!signature) refuse(`it lacks the signature of ${signer}`);
        if (!verifySignature(signer, new Uint8Array(tx.messageBytes), signature as Uint8Array))
          refuse(`the signature of ${signer} is not valid`);
      }
      const cuLimit = summary.computeUnitLimit ?? 200_000;
      const cuPrice = summary.computeUnitPrice ?? 0n;
      const fee = maxFee(summary.signers.length, cuLimit, cuPrice, BigInt(p.accountRent));
      if (fee > match.fee * 2n) refuse(`its fee bound ${fee} lamports is more than twice the prepared ${match.fee}`);
      const payload: SolanaTxPayload = {
        ...p,
        message: b64(new Uint8Array(tx.messageBytes)),
        computeUnitLimit: cuLimit,
        computeUnitPrice: cuPrice.toString(),
        signers: summary.signers,
      };
      const txHash = base58(tx.signatures[summary.feePayer as Address] as Uint8Array);
      return {
        signed: { raw: getBase64EncodedWireTransaction(tx), txHash },
        payload,
        fee,
        ...(match.expiresAt ? { expiresAt: match.expiresAt } : {}),
      };
    },

    async broadcast(signed: SignedWithdrawal, reader: SolanaReader): Promise<void> {
      let signature: string;
      try {
        signature = await reader.send<string>('sendTransaction', [
          signed.raw,
          { encoding: 'base64', preflightCommitment: 'confirmed', skipPreflight: false },
        ]);
      } catch (e) {
        // The same bytes again (a retry after a crash): the node already has this very signature.
        if (await knownSignature(reader, signed.txHash)) return;
        if ((e as Error).message.toLowerCase().includes('already been processed')) return;
        throw nodeRefusal(e);
      }
      if (signature !== signed.txHash) throw new BaseError('node_error', 'the node reported another transaction signature');
    },

    async verify(unsigned: UnsignedWithdrawal, txHash: string, reader: SolanaReader, context?: VerifyContext): Promise<WithdrawalVerdict> {
      const p = payloadOf(unsigned);
      const status = await signatureStatus(reader, txHash);
      if (!status) {
        // Unknown to the node: gone for good only once the finalized chain is past its validity.
        const finalizedHeight = BigInt(await reader.call<number | string>('getBlockHeight', [{ commitment: 'finalized' }]));
        if (finalizedHeight > BigInt(p.lastValidBlockHeight) && !(await signatureStatus(reader, txHash)))
          return { status: 'rejected', confirmations: 0, reason: context?.seenInBlock ? 'reorg' : 'expired' };
        return { status: 'missing', confirmations: 0 };
      }
      const tx = await reader.call<{
        slot: number | string;
        meta: { err: unknown; fee: number | string; preBalances: (number | string)[]; postBalances: (number | string)[] } & {
          preTokenBalances?: { accountIndex: number; mint: string; uiTokenAmount: { amount: string } }[];
          postTokenBalances?: { accountIndex: number; mint: string; uiTokenAmount: { amount: string } }[];
          loadedAddresses?: { writable: string[]; readonly: string[] };
        };
        transaction: { message: { accountKeys: string[] } };
      } | null>('getTransaction', [txHash, { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' }]);
      if (!tx) return { status: 'pending', confirmations: 0 };
      const blockNumber = BigInt(tx.slot);
      const keys = [
        ...tx.transaction.message.accountKeys,
        ...(tx.meta.loadedAddresses?.writable ?? []),
        ...(tx.meta.loadedAddresses?.readonly ?? []),
      ];
      const lamportsAt = (account: string | undefined) => {
        const i = account === undefined ? -1 : keys.indexOf(account);
        if (i < 0) return { pre: 0n, post: 0n };
        return { pre: BigInt(tx.meta.preBalances[i] ?? 0), post: BigInt(tx.meta.postBalances[i] ?? 0) };
      };
      // The recipient's token account created here: its lamports are the rent the fee payer paid.
      const created = p.kind === 'token' ? lamportsAt(p.recipientTokenAccount) : { pre: 0n, post: 0n };
      const rent = created.pre === 0n ? created.post : 0n;
      const fee = BigInt(tx.meta.fee) + rent;
      if (tx.meta.err !== null) return { status: 'rejected', confirmations: 0, fee, blockNumber, reason: 'failed_on_chain' };
      let paid: boolean;
      if (p.kind === 'sol') {
        const r = lamportsAt(p.recipient);
        paid = r.post - r.pre === BigInt(p.amount);
      } else {
        const i = keys.indexOf(p.recipientTokenAccount as string);
        const amount = (list?: { accountIndex: number; mint: string; uiTokenAmount: { amount: string } }[]) =>
          BigInt(list?.find((b) => b.accountIndex === i && b.mint === p.mint)?.uiTokenAmount.amount ?? '0');
        paid = i >= 0 && amount(tx.meta.postTokenBalances) - amount(tx.meta.preTokenBalances) === BigInt(p.amount);
      }
      if (!paid) return { status: 'pending', confirmations: 0, blockNumber };
      const head = await reader.head();
      return { status: 'confirmed', confirmations: Number(head - blockNumber + 1n), fee, blockNumber };
    },
  });
}

async function signatureStatus(reader: SolanaReader, signature: string): Promise<{ slot: number | string; err: unknown } | null> {
  const r = await reader.call<{ value: ({ slot: number | string; err: unknown } | null)[] }>('getSignatureStatuses', [
    [signature],
    { searchTransactionHistory: true },
  ]);
  return r.value[0] ?? null;
}

async function knownSignature(reader: SolanaReader, signature: string): Promise<boolean> {
  try {
    return (await signatureStatus(reader, signature)) !== null;
  } catch {
    return false;
  }
}
