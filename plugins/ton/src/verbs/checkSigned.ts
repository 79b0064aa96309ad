import { Cell, SendMode, loadMessage, loadOutList } from '@ton/core';
import { BaseError, type CheckedSignedWithdrawal, type UnsignedWithdrawal } from '@walletd/plugin-kit';
import { commentOf } from '../detect';
import {
  OP_JETTON_TRANSFER,
  SEND_MODE,
  type TonMessage,
  type TonPayload,
  VALID_FOR_SECONDS,
  VALID_UNTIL_SKEW_SECONDS,
  messageHash,
  payloadOf,
} from '../payload';

/**
 * Send modes a message signed elsewhere may use: fees apart from the value, with or without
 * ignoring errors. Not 0 (fees taken from the value: the recipient gets less), nor 64/128 (carry
 * the inbound value or the whole balance), 32 (destroy the account) or 16 (bounce on failure).
 */
const ACCEPTED_SEND_MODES: ReadonlySet<number> = new Set([SendMode.PAY_GAS_SEPARATELY, SEND_MODE]);

export function checkSignedTonWithdrawal(prepared: UnsignedWithdrawal, raw: string, fresh?: UnsignedWithdrawal): CheckedSignedWithdrawal {
  const p = payloadOf(fresh ?? prepared);
  const refuse = (what: string): never => {
    throw new BaseError('unprocessable', `the signed message does not pay the prepared withdrawal: ${what}`);
  };
  let signed: ReturnType<typeof readSignedTransfer>;
  try {
    signed = readSignedTransfer(raw);
  } catch (e) {
    return refuse(`it is not a wallet v5r1 external message (${(e as Error).message})`);
  }
  if (signed.wallet !== p.source) refuse(`it is sent by ${signed.wallet}, not ${p.source}`);
  if (!ACCEPTED_SEND_MODES.has(signed.mode))
    refuse(`it sends with mode ${signed.mode}; only ${[...ACCEPTED_SEND_MODES].join(' or ')} pay exactly the amount and nothing more`);
  // The wallet checks the signature (a message it refuses never lands and expires), but a far
  // seqno or valid_until would hold the source's next seqno for ever: both are bounded here.
  if (signed.seqno !== p.seqno) refuse(`its seqno is ${signed.seqno}; the wallet's next is ${p.seqno} (prepare it again)`);
  if (signed.validUntil > Math.floor(Date.now() / 1000) + VALID_FOR_SECONDS + VALID_UNTIL_SKEW_SECONDS)
    refuse(`it stays valid until ${new Date(signed.validUntil * 1000).toISOString()}, longer than ${VALID_FOR_SECONDS} s`);
  const m = signed.message;
  if (m.to !== p.message.to) refuse(`it pays ${m.to}, not ${p.message.to}`);
  if (p.jetton) {
    if (m.value !== p.message.value) refuse('it attaches another TON amount to the jetton transfer');
    const expected = jettonTransferOf(p.message.body);
    const actual = jettonTransferOf(m.body);
    if (!actual || !expected) return refuse('its body is not a jetton transfer');
    if (actual.amount !== expected.amount) refuse('it moves another jetton amount');
    // Another query_id would bring its excess back as a customer deposit (counted twice).
    if (actual.queryId !== expected.queryId) refuse(`its query_id is ${actual.queryId}, not ${expected.queryId}`);
    if (actual.destination !== expected.destination) refuse(`it pays the jetton to ${actual.destination}`);
    if (actual.responseDestination !== expected.responseDestination)
      refuse(`it sends the excess TON to ${actual.responseDestination ?? 'nobody'}, not back to the wallet`);
    if (actual.customPayload) refuse('it carries a custom payload');
    if (actual.forwardTon !== expected.forwardTon) refuse('it forwards another TON amount with the notification');
    if (actual.memo !== expected.memo) refuse('its memo differs');
  } else {
    if (m.value !== p.message.value) refuse('it pays another amount');
    // A body that is not a comment (binary, encrypted) reads as no memo: only none at all matches none.
    if (p.message.body === null && m.body !== null) refuse('it carries a message body the prepared withdrawal has not');
    if (
      commentOf(m.body ? Cell.fromBase64(m.body).beginParse() : null) !==
      commentOf(p.message.body ? Cell.fromBase64(p.message.body).beginParse() : null)
    )
      refuse('its memo differs');
  }
  // The signature is the wallet's to check: a message it does not accept never lands (the node refuses it).
  const payload: TonPayload = { ...p, seqno: signed.seqno, validUntil: signed.validUntil, deploy: signed.deploy, message: m };
  return {
    signed: { raw, txHash: messageHash(raw) },
    payload,
    fee: (fresh ?? prepared).fee,
    expiresAt: { time: new Date(signed.validUntil * 1000).toISOString() },
  };
}

const OP_SIGNED_EXTERNAL = 0x7369676e;

/** What a v5r1 external message asks its wallet to do (one plain send), read from its bytes. */
function readSignedTransfer(raw: string) {
  const ext = loadMessage(Cell.fromBase64(raw).beginParse());
  if (ext.info.type !== 'external-in') throw new BaseError('encoding_invalid', 'not an external message');
  const body = ext.body.beginParse();
  if (body.loadUint(32) !== OP_SIGNED_EXTERNAL) throw new BaseError('encoding_invalid', 'not a signed request');
  body.loadUint(32); // wallet id
  const validUntil = body.loadUint(32);
  const seqno = body.loadUint(32);
  const list = body.loadMaybeRef();
  if (!list || body.loadBit()) throw new BaseError('encoding_invalid', 'not a plain list of sends');
  const actions = loadOutList(list.beginParse());
  const send = actions[0];
  if (actions.length !== 1 || send?.type !== 'sendMsg' || send.outMsg.info.type !== 'internal')
    throw new BaseError('encoding_invalid', 'not exactly one internal message');
  const info = send.outMsg.info;
  return {
    wallet: ext.info.dest.toRawString(),
    mode: send.mode,
    deploy: ext.init !== undefined && ext.init !== null,
    validUntil,
    seqno,
    message: {
      to: info.dest.toRawString(),
      bounce: info.bounce,
      value: info.value.coins.toString(),
      body: send.outMsg.body.bits.length > 0 || send.outMsg.body.refs.length > 0 ? send.outMsg.body.toBoc().toString('base64') : null,
    } satisfies TonMessage,
  };
}

interface JettonTransfer {
  queryId: bigint;
  amount: bigint;
  destination: string;
  /** Where the jetton wallets send the unused TON back. */
  responseDestination: string | null;
  customPayload: boolean;
  forwardTon: bigint;
  memo: string | null;
}

export function jettonTransferOf(body: string | null): JettonTransfer | null {
  if (!body) return null;
  const s = Cell.fromBase64(body).beginParse();
  if (s.loadUint(32) !== OP_JETTON_TRANSFER) return null;
  const queryId = s.loadUintBig(64);
  const amount = s.loadCoins();
  const destination = s.loadAddress().toRawString();
  const responseDestination = s.loadMaybeAddress()?.toRawString() ?? null;
  const customPayload = s.loadMaybeRef() !== null;
  const forwardTon = s.loadCoins();
  const payload = s.loadBit() ? s.loadRef().beginParse() : s;
  return { queryId, amount, destination, responseDestination, customPayload, forwardTon, memo: commentOf(payload) };
}
