import { Address, Cell, type Message } from '@ton/core';
import type { UnsignedWithdrawal } from '@walletd/plugin-kit';
import { parseTonAddress } from './addresses';
import { jettonTransferOf } from './verbs/checkSigned';
import { commentOf } from './detect';
import { payloadOf } from './payload';

const sameAddress = (network: string, text: string | undefined, raw: string): boolean => {
  const parsed = text === undefined ? null : parseTonAddress(network, text);
  return parsed !== null && parsed.toRawString() === raw;
};

/**
 * The wallet's outgoing message is the withdrawal's: sent by the intent's source, to the intent's
 * recipient (a jetton's: our jetton wallet of the intent's master, carrying a transfer of the exact
 * amount to the recipient), the exact value and the memo, byte for byte the message the payload
 * holds. Without this, any transaction of the source found under the hash `verify` is handed would
 * read as this withdrawal paid (the conformance kit's "mined but not the intent").
 */
export function paysIntent(unsigned: UnsignedWithdrawal, out: Message): boolean {
  const p = payloadOf(unsigned);
  const { intent } = unsigned;
  const output = intent.outputs[0];
  if (!output || intent.outputs.length !== 1 || out.info.type !== 'internal') return false;
  if (!sameAddress(intent.network, unsigned.sourceAddresses[0] ?? intent.sources[0], p.source)) return false;
  const memo = output.memo ?? null;
  const token = intent.asset.contractAddress;
  if (token) {
    const transfer = jettonTransferOf(p.message.body);
    if (!p.jetton || !transfer || p.jetton.master !== Address.parse(token).toRawString()) return false;
    if (transfer.amount !== output.amount || !sameAddress(intent.network, output.to, transfer.destination) || transfer.memo !== memo)
      return false;
  } else {
    if (p.jetton || BigInt(p.message.value) !== output.amount || !sameAddress(intent.network, output.to, p.message.to)) return false;
    if (commentOf(p.message.body ? Cell.fromBase64(p.message.body).beginParse() : null) !== memo) return false;
  }
  // What left the wallet is that very message.
  const body = p.message.body ? Cell.fromBase64(p.message.body) : new Cell();
  return (
    out.info.dest.toRawString() === p.message.to && out.info.value.coins === BigInt(p.message.value) && out.body.hash().equals(body.hash())
  );
}
