import { type Address, Cell, loadMessage, loadTransaction } from '@ton/core';
import type { SignedWithdrawal } from '@walletd/plugin-kit';
import { nodeRefusal } from '../nodeRefusal';
import { inMessageHash } from '../payload';
import type { TonReader } from '../reader';

export async function broadcastTonWithdrawal(signed: SignedWithdrawal, reader: TonReader): Promise<void> {
  try {
    await reader.sendBoc(Buffer.from(signed.raw, 'base64'));
  } catch (e) {
    // The same bytes again, or a seqno already used: applied already if the wallet's history has it.
    const ext = loadMessage(Cell.fromBase64(signed.raw).beginParse());
    const wallet = ext.info.dest as Address;
    const history = await reader.transactions(wallet, 16);
    if (history.some((i) => inMessageHash(loadTransaction(Cell.fromBase64(i.data).beginParse())) === signed.txHash)) return;
    throw nodeRefusal(e);
  }
}
