import { ASSOCIATED_TOKEN_PROGRAM, COMPUTE_BUDGET_PROGRAM, SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './programs';
import { BaseError } from '@walletd/plugin-kit';
import { solanaKit } from './sdk';

/** What a walletd Solana transaction does, read back from its message bytes (checkSigned compares these). */
export interface MessageSummary {
  feePayer: string;
  signers: string[];
  blockhash: string;
  computeUnitLimit: number | null;
  computeUnitPrice: bigint | null;
  /** The one payment: a system transfer or a token TransferChecked. */
  transfer: {
    program: string;
    from: string;
    to: string;
    amount: bigint;
    mint?: string;
    authority?: string;
    decimals?: number;
  } | null;
  /** CreateAssociatedTokenAccountIdempotent: the account created (paid by the fee payer). */
  createsAccount: { account: string; owner: string; mint: string; program: string } | null;
  /** Anything else the message does (a walletd transaction does nothing else). */
  unknown: string[];
}

const u64 = (d: Uint8Array, at: number): bigint => new DataView(d.buffer, d.byteOffset, d.byteLength).getBigUint64(at, true);
const u32 = (d: Uint8Array, at: number): number => new DataView(d.buffer, d.byteOffset, d.byteLength).getUint32(at, true);

export function summarizeMessage(messageBytes: Uint8Array): MessageSummary {
  const decoded = solanaKit().getCompiledTransactionMessageDecoder().decode(messageBytes);
  if (decoded.version === 1) throw new BaseError('encoding_invalid', 'a v1 message is not a walletd transaction');
  const m = decoded;
  const keys = m.staticAccounts as string[];
  if ('addressTableLookups' in m && (m.addressTableLookups?.length ?? 0) > 0)
    throw new BaseError('encoding_invalid', 'the message loads accounts from lookup tables');
  const out: MessageSummary = {
    feePayer: keys[0] as string,
    signers: keys.slice(0, m.header.numSignerAccounts),
    blockhash: m.lifetimeToken,
    computeUnitLimit: null,
    computeUnitPrice: null,
    transfer: null,
    createsAccount: null,
    unknown: [],
  };
  for (const ix of m.instructions) {
    const program = keys[ix.programAddressIndex] as string;
    const data = new Uint8Array(ix.data ?? new Uint8Array());
    const acc = (i: number) => keys[ix.accountIndices?.[i] ?? -1] as string;
    if (program === COMPUTE_BUDGET_PROGRAM && data[0] === 2 && data.length === 5) out.computeUnitLimit = u32(data, 1);
    else if (program === COMPUTE_BUDGET_PROGRAM && data[0] === 3 && data.length === 9) out.computeUnitPrice = u64(data, 1);
    else if (program === SYSTEM_PROGRAM && data.length === 12 && u32(data, 0) === 2 && !out.transfer)
      out.transfer = { program, from: acc(0), to: acc(1), amount: u64(data, 4) };
    else if ((program === TOKEN_PROGRAM || program === TOKEN_2022_PROGRAM) && data[0] === 12 && data.length === 10 && !out.transfer)
      out.transfer = {
        program,
        from: acc(0),
        mint: acc(1),
        to: acc(2),
        authority: acc(3),
        amount: u64(data, 1),
        decimals: data[9] as number,
      };
    else if (program === ASSOCIATED_TOKEN_PROGRAM && data.length === 1 && data[0] === 1 && !out.createsAccount)
      out.createsAccount = { account: acc(1), owner: acc(2), mint: acc(3), program: acc(5) };
    else out.unknown.push(`${program} instruction ${Buffer.from(data.subarray(0, 8)).toString('hex')}`);
  }
  return out;
}

export const base58 = (bytes: Uint8Array): string => solanaKit().getBase58Decoder().decode(bytes);
