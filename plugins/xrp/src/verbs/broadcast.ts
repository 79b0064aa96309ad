import type { SignedWithdrawal } from '@walletd/plugin-kit';
import { accepted, nodeRefusal } from '../nodeRefusal';
import type { XrpReader } from '../reader';

/** `submit`; a result that applied or queued the Payment, or says the node has these bytes, is no refusal. */
export async function broadcastXrpWithdrawal(signed: SignedWithdrawal, reader: XrpReader): Promise<void> {
  const { engineResult, message } = await reader.submit(signed.raw);
  if (accepted(engineResult)) return;
  // Re-sending bytes already applied says tefPAST_SEQ too: idempotent when the ledger has this hash.
  if (engineResult === 'tefPAST_SEQ' && (await reader.tx(signed.txHash)).found) return;
  throw nodeRefusal(engineResult, message);
}
