import { BaseError, type WithdrawalIntent } from '@walletd/plugin-kit';
import { CU, priorityFee } from './build';
import { checkSolanaIntent } from './checkIntent';
import { maxFee } from '../payload';
import { TOKEN_2022_ACCOUNT_SIZE, TOKEN_2022_PROGRAM, TOKEN_ACCOUNT_SIZE, parseTokenContract } from '../programs';
import type { SolanaReader } from '../reader';
import { associatedTokenAccount } from './tokenAccounts';

/**
 * The fee `build` would set for this intent now, whoever holds what (`WithdrawalVerbs.quoteFee`):
 * a token transfer paid by `sources[1]` when given (the gas station as fee payer: two signatures),
 * plus the rent of the recipient's associated token account when it does not exist yet (the fee
 * payer puts it there). No top-up follows on Solana: the station pays as fee payer.
 */
export async function quoteSolanaFee(intent: WithdrawalIntent, reader: SolanaReader): Promise<bigint> {
  checkSolanaIntent(intent);
  const [output] = intent.outputs;
  const [source, payer] = intent.sources;
  if (!output || !source) throw new BaseError('validation_failed', 'a source address and one recipient are required');
  const signers = payer !== undefined && payer !== source ? 2 : 1;
  const token = intent.asset.contractAddress;
  if (token === null) return maxFee(signers, CU.sol, await priorityFee(reader, [source, output.to]), 0n);
  const { mint, program } = parseTokenContract(token);
  const [from, to] = await Promise.all([associatedTokenAccount(source, mint, program), associatedTokenAccount(output.to, mint, program)]);
  const creates = (await reader.tokenAmount(to)) === null;
  const rent = creates ? await reader.rentExemptMinimum(program === TOKEN_2022_PROGRAM ? TOKEN_2022_ACCOUNT_SIZE : TOKEN_ACCOUNT_SIZE) : 0n;
  const cuLimit = program === TOKEN_2022_PROGRAM ? (creates ? CU.token2022Create : CU.token2022) : creates ? CU.tokenCreate : CU.token;
  return maxFee(signers, cuLimit, await priorityFee(reader, [from, to]), rent);
}
