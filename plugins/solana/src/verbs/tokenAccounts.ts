import type { DerivedAddress, TokenAccount, TokenDefinition } from '@walletd/plugin-kit';
import { parseTokenContract } from '../programs';
import { solanaKit, tokenProgram } from '../sdk';

/** The associated token account of `owner` for `mint` under `program` (a program-derived address, computed offline). */
export async function associatedTokenAccount(owner: string, mint: string, program: string): Promise<string> {
  const [ata] = await tokenProgram().findAssociatedTokenPda({
    owner: solanaKit().address(owner),
    mint: solanaKit().address(mint),
    tokenProgram: solanaKit().address(program),
  });
  return ata;
}

/**
 * Contract v2 `tokenAccounts`: a deposit address receives an SPL token in its associated token
 * account for the mint (what every wallet and exchange pays to). The service watches it tied to
 * (owner, asset): a payment to it is credited to the owner in that mint, nothing else is.
 */
export async function solanaTokenAccounts(owner: DerivedAddress, tokens: readonly TokenDefinition[]): Promise<TokenAccount[]> {
  const out: TokenAccount[] = [];
  for (const t of tokens) {
    const { mint, program } = parseTokenContract(t.contractAddress ?? t.matchKey);
    const ata = await associatedTokenAccount(owner.address, mint, program);
    out.push({ assetKey: t.key, address: ata, matchKey: ata });
  }
  return out;
}
