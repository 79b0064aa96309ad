import type { Instruction, Blockhash } from '@solana/kit';
import { BaseError, type BuildContext, type UnsignedWithdrawal, type WithdrawalIntent } from '@walletd/plugin-kit';
import { checkSolanaIntent } from './checkIntent';
import { type SolanaTxPayload, b64, maxFee } from '../payload';
import { SYSTEM_ACCOUNT_SIZE, TOKEN_2022_ACCOUNT_SIZE, TOKEN_2022_PROGRAM, TOKEN_ACCOUNT_SIZE, parseTokenContract } from '../programs';
import type { SolanaReader } from '../reader';
import { associatedTokenAccount } from './tokenAccounts';
import { computeBudget, solanaKit, systemProgram, tokenProgram } from '../sdk';

/** Compute unit limits with headroom over what each instruction set costs on mainnet. */
export const CU = { sol: 1_000, token: 12_000, tokenCreate: 45_000, token2022: 25_000, token2022Create: 80_000 } as const;
/** The priority fee is the 75th percentile of recent fees on the written accounts, capped. */
const MAX_CU_PRICE = 5_000_000n;

export async function priorityFee(reader: SolanaReader, accounts: string[]): Promise<bigint> {
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
    computeBudget().getSetComputeUnitLimitInstruction({ units: p.cuLimit }),
    computeBudget().getSetComputeUnitPriceInstruction({ microLamports: p.cuPrice }),
  ];
  const source = solanaKit().createNoopSigner(solanaKit().address(p.source));
  if (p.kind === 'sol') {
    ixs.push(systemProgram().getTransferSolInstruction({ source, destination: solanaKit().address(p.recipient), amount: p.amount }));
  } else {
    const programAddress = solanaKit().address(p.tokenProgram as string);
    if (p.accountRent > 0n)
      ixs.push(
        tokenProgram().getCreateAssociatedTokenIdempotentInstruction({
          payer: solanaKit().createNoopSigner(solanaKit().address(p.feePayer)),
          ata: solanaKit().address(p.recipientTokenAccount as string),
          owner: solanaKit().address(p.recipient),
          mint: solanaKit().address(p.mint as string),
          tokenProgram: programAddress,
        }),
      );
    ixs.push(
      tokenProgram().getTransferCheckedInstruction(
        {
          source: solanaKit().address(p.sourceTokenAccount as string),
          mint: solanaKit().address(p.mint as string),
          destination: solanaKit().address(p.recipientTokenAccount as string),
          authority: source,
          amount: p.amount,
          decimals: p.decimals as number,
        },
        { programAddress },
      ),
    );
  }
  const message = solanaKit().pipe(
    solanaKit().createTransactionMessage({ version: 0 }),
    (m) => solanaKit().setTransactionMessageFeePayer(solanaKit().address(p.feePayer), m),
    (m) =>
      solanaKit().setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: p.blockhash as Blockhash, lastValidBlockHeight: p.lastValidBlockHeight },
        m,
      ),
    (m) => solanaKit().appendTransactionMessageInstructions(ixs, m),
  );
  const tx = solanaKit().compileTransaction(message);
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

export async function buildSolanaWithdrawal(
  intent: WithdrawalIntent,
  reader: SolanaReader,
  context?: BuildContext,
): Promise<UnsignedWithdrawal> {
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
    // Either the source keeps its rent-exempt minimum, or it gives everything (a sweep): an account
    // left with 0 lamports is closed, which the runtime allows; anything between is refused on chain.
    // The fee is exact on Solana (signatures and compute-unit price), so "everything" is exact too.
    if (balance < output.amount + fee + keepSystem && balance !== output.amount + fee)
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
    const [held, recipientHeld] = await Promise.all([reader.tokenAmount(sourceTokenAccount), reader.tokenAmount(recipientTokenAccount)]);
    if ((held ?? 0n) < output.amount)
      throw new BaseError(
        'insufficient_funds',
        `${source} holds ${held ?? 0n} of ${intent.asset.symbol} in ${sourceTokenAccount}: too little`,
      );
    const creates = recipientHeld === null;
    const accountRent = creates
      ? await reader.rentExemptMinimum(program === TOKEN_2022_PROGRAM ? TOKEN_2022_ACCOUNT_SIZE : TOKEN_ACCOUNT_SIZE)
      : 0n;
    const cuLimit = program === TOKEN_2022_PROGRAM ? (creates ? CU.token2022Create : CU.token2022) : creates ? CU.tokenCreate : CU.token;
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
}
