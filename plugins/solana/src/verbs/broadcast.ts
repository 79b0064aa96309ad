import { BaseError, type SignedWithdrawal } from '@walletd/plugin-kit';
import { nodeRefusal } from '../nodeRefusal';
import { signatureStatus } from '../signatureStatus';
import type { SolanaReader } from '../reader';

export async function broadcastSolanaWithdrawal(signed: SignedWithdrawal, reader: SolanaReader): Promise<void> {
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
}

async function knownSignature(reader: SolanaReader, signature: string): Promise<boolean> {
  try {
    return (await signatureStatus(reader, signature)) !== null;
  } catch {
    return false;
  }
}
