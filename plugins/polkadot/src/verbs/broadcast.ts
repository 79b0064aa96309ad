import { BaseError, NodeCallError, type SignedWithdrawal, isPublicError } from '@walletd/plugin-kit';
import { nodeRefusal } from '../nodeRefusal';
import type { PolkadotReader } from '../reader';

const nodeMessage = (e: unknown): string => (e as Error).message;

export async function broadcastPolkadotWithdrawal(signed: SignedWithdrawal, reader: PolkadotReader): Promise<void> {
  try {
    const hash = await reader.send<string>('author_submitExtrinsic', [signed.raw]);
    if (hash !== signed.txHash) throw new BaseError('node_error', 'the node reported another extrinsic hash');
  } catch (e) {
    if (isPublicError(e) && !(e instanceof NodeCallError)) throw e;
    const message = nodeMessage(e);
    const m = message.toLowerCase();
    // The same bytes again (a retry after a crash): already in the pool, or already included.
    if (m.includes('already imported') || m.includes('temporarily banned') || m.includes('1013')) return;
    // Its nonce is used ("Transaction is outdated"): by these very bytes when a retry follows a
    // broadcast that landed, or by another transaction. `verify` tells the two apart (found in
    // a block of its era, or expired), so a retry is never an error here.
    if (m.includes('outdated') || m.includes('stale')) return;
    throw nodeRefusal(e);
  }
}
