import { address, getBase58Decoder } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import type { LiteSVM } from 'litesvm';
import type { TokenState } from './solanaTypes';

export const TOKEN_2022 = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
const base58 = (bytes: Uint8Array) => getBase58Decoder().decode(bytes);

/** A token account's state read from the engine's bytes (SPL Token and Token-2022 share the layout), or null. */
export function readTokenState(svm: LiteSVM, addr: string): TokenState | null {
  const acc = svm.getAccount(address(addr));
  if (!acc.exists) return null;
  const owner = acc.programAddress as string;
  if ((owner !== TOKEN_PROGRAM_ADDRESS && owner !== TOKEN_2022) || acc.data.length < 165) return null;
  const data = acc.data;
  const mint = base58(data.subarray(0, 32));
  const mintAcc = svm.getAccount(address(mint));
  const decimals = mintAcc.exists ? (mintAcc.data[44] as number) : 0;
  return {
    mint,
    owner: base58(data.subarray(32, 64)),
    amount: new DataView(data.buffer, data.byteOffset + 64, 8).getBigUint64(0, true),
    program: owner,
    decimals,
  };
}

/** The RPC's pre/postTokenBalances entries for a transaction's accounts. */
export const tokenBalancesOf = (svm: LiteSVM, keys: string[]) =>
  keys.flatMap((k, accountIndex) => {
    const t = readTokenState(svm, k);
    return t
      ? [
          {
            accountIndex,
            mint: t.mint,
            owner: t.owner,
            programId: t.program,
            uiTokenAmount: { amount: t.amount.toString(), decimals: t.decimals, uiAmountString: t.amount.toString() },
          },
        ]
      : [];
  });
