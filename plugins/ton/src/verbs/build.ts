import { Address, beginCell } from '@ton/core';
import { BaseError, type BuildContext, type UnsignedWithdrawal, type WithdrawalIntent, fromBaseUnits } from '@walletd/plugin-kit';
import { parseTonAddress } from '../addresses';
import { checkTonIntent } from './checkIntent';
import { ownJettonQueryId } from '../detect';
import { JETTON_ATTACHED, OP_JETTON_TRANSFER, type TonMessage, type TonPayload, VALID_FOR_SECONDS, tonFeeCap } from '../payload';
import type { TonReader } from '../reader';

/** TON forwarded with the recipient's transfer_notification (so a comment reaches its wallet). */
const FORWARD_TON = 1n;

const ton = (nano: bigint) => `${fromBaseUnits(nano, 9)} TON`;
const commentCell = (text: string) => beginCell().storeUint(0, 32).storeStringTail(text).endCell();

export async function buildTonWithdrawal(intent: WithdrawalIntent, reader: TonReader, context?: BuildContext): Promise<UnsignedWithdrawal> {
  const sourceText = intent.sources[0];
  const source = sourceText ? parseTonAddress(intent.network, sourceText) : null;
  if (!source) throw new BaseError('validation_failed', 'a source address is required');
  const r = checkTonIntent(intent);
  const [info, seqnoNow, destination] = await Promise.all([reader.accountInfo(source), reader.seqno(source), reader.accountInfo(r.to)]);
  let seqno = seqnoNow;
  for (const w of context?.inFlight ?? []) {
    const p = w.payload as TonPayload | undefined;
    if (p?.source === source.toRawString() && p.seqno >= seqno) seqno = p.seqno + 1;
  }
  const deploy = info.state !== 'active';
  const validUntil = Math.floor(Date.now() / 1000) + VALID_FOR_SECONDS;
  let message: TonMessage;
  let jetton: TonPayload['jetton'];
  const fee = tonFeeCap(intent.asset);
  if (intent.asset.contractAddress) {
    const master = Address.parse(intent.asset.contractAddress);
    const ownWallet = await reader.jettonWalletAddress(master, source);
    const held = await reader.jettonBalance(ownWallet);
    if (held < r.amount)
      throw new BaseError(
        'insufficient_funds',
        `${sourceText} holds ${fromBaseUnits(held, intent.asset.decimals)} ${intent.asset.symbol}, less than ${fromBaseUnits(r.amount, intent.asset.decimals)}`,
      );
    if (info.balance < fee)
      throw new BaseError(
        'insufficient_funds',
        `${sourceText} needs up to ${ton(fee)} for the jetton transfer's fees and holds ${ton(info.balance)}`,
      );
    const body = beginCell()
      .storeUint(OP_JETTON_TRANSFER, 32)
      .storeUint(ownJettonQueryId(seqno), 64) // echoed in the excesses: how detect knows the refund is ours
      .storeCoins(r.amount)
      .storeAddress(r.to)
      .storeAddress(source) // response_destination: the excess comes back to the wallet
      .storeBit(0) // no custom payload
      .storeCoins(FORWARD_TON)
      .storeMaybeRef(r.memo !== undefined ? commentCell(r.memo) : null)
      .endCell();
    message = { to: ownWallet.toRawString(), bounce: true, value: JETTON_ATTACHED.toString(), body: body.toBoc().toString('base64') };
    jetton = { master: master.toRawString(), attached: JETTON_ATTACHED.toString(), recipient: r.to.toRawString() };
  } else {
    if (info.balance < r.amount + fee)
      throw new BaseError('insufficient_funds', `${sourceText} holds ${ton(info.balance)} and this needs ${ton(r.amount + fee)} with fees`);
    // A friendly address says how to send; a raw one bounces only to a deployed contract.
    const bounce = r.bounceable ?? destination.state === 'active';
    message = {
      to: r.to.toRawString(),
      bounce,
      value: r.amount.toString(),
      body: r.memo !== undefined ? commentCell(r.memo).toBoc().toString('base64') : null,
    };
  }
  const payload: TonPayload = {
    network: intent.network,
    source: source.toRawString(),
    seqno,
    validUntil,
    deploy,
    message,
    ...(jetton ? { jetton } : {}),
  };
  return {
    intent,
    payload,
    fee,
    sourceAddresses: [sourceText as string],
    expiresAt: { time: new Date(validUntil * 1000).toISOString() },
  };
}
