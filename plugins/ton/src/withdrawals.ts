import {
  Address,
  Cell,
  SendMode,
  beginCell,
  external,
  internal,
  loadMessage,
  loadOutList,
  loadTransaction,
  storeMessage,
  type Transaction,
} from '@ton/core';
import {
  BaseError,
  type BuildContext,
  type CheckedSignedWithdrawal,
  type SignedWithdrawal,
  type UnsignedWithdrawal,
  type WalletSecret,
  type WithdrawalIntent,
  type WithdrawalVerbs,
  type WithdrawalVerdict,
  fromBaseUnits,
  refusingUnreadableSigned,
} from '@walletd/core';
import { nodeRefusal } from './nodeRefusal';
import { parseTonAddress, tonKey, walletOf } from './addresses';
import { checkTonIntent } from './checkIntent';
import { OP_EXCESSES, commentOf, ownJettonQueryId } from './detect';
import type { RawTransactionItem, TonReader } from './tonReader';

/** The one message the wallet sends, as signed (`body` a BOC in base64). */
export interface TonMessage {
  to: string;
  bounce: boolean;
  value: string;
  body: string | null;
}

export interface TonPayload {
  network: string;
  /** The paying wallet, raw. */
  source: string;
  seqno: number;
  /** valid_until (unix seconds): past it the wallet refuses the message for good. */
  validUntil: number;
  /** First send of a wallet not deployed yet: the external message carries its state-init. */
  deploy: boolean;
  message: TonMessage;
  /** Jetton withdrawals: the master and the TON attached for the jetton wallets' fees (its excess comes back). */
  jetton?: { master: string; attached: string; recipient: string };
}

/** How long a signed withdrawal stays valid: 5 minutes after it is prepared. */
export const VALID_FOR_SECONDS = 300;
/** Fee bound of a TON transfer (compute + forward fees of a v5r1 send, state-init included): 0.02 TON. */
export const TON_FEE_BOUND = 20_000_000n;
/** TON attached to a jetton transfer for the two jetton wallets' fees; what is not used comes back (`excesses`). */
export const JETTON_ATTACHED = 50_000_000n;
/** TON forwarded with the recipient's transfer_notification (so a comment reaches its wallet). */
const FORWARD_TON = 1n;
/** How `sign` sends: fees paid apart from the value (the recipient gets the whole amount), errors ignored. */
const SEND_MODE = SendMode.PAY_GAS_SEPARATELY + SendMode.IGNORE_ERRORS;
/**
 * Send modes a message signed elsewhere may use: fees apart from the value, with or without
 * ignoring errors. Not 0 (fees taken from the value: the recipient gets less), nor 64/128 (carry
 * the inbound value or the whole balance), 32 (destroy the account) or 16 (bounce on failure).
 */
const ACCEPTED_SEND_MODES: ReadonlySet<number> = new Set([SendMode.PAY_GAS_SEPARATELY, SEND_MODE]);
/** Clock difference allowed between the signer and this service when judging a message's valid_until. */
const VALID_UNTIL_SKEW_SECONDS = 60;
const OP_JETTON_TRANSFER = 0x0f8a7ea5;

const ton = (nano: bigint) => `${fromBaseUnits(nano, 9)} TON`;
const payloadOf = (u: UnsignedWithdrawal) => u.payload as TonPayload;
const commentCell = (text: string) => beginCell().storeUint(0, 32).storeStringTail(text).endCell();

/** The external message's hash: the withdrawal's id until its wallet transaction exists. */
const messageHash = (boc: string) => Cell.fromBase64(boc).hash().toString('hex');
const inMessageHash = (tx: Transaction): string | null =>
  tx.inMessage ? beginCell().store(storeMessage(tx.inMessage)).endCell().hash().toString('hex') : null;

export function createTonWithdrawals(): WithdrawalVerbs<TonReader> {
  return refusingUnreadableSigned('TON external message', {
    checkIntent: (intent) => {
      checkTonIntent(intent);
    },
    async build(intent: WithdrawalIntent, reader: TonReader, context?: BuildContext): Promise<UnsignedWithdrawal> {
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
      let fee: bigint;
      if (intent.asset.contractAddress) {
        const master = Address.parse(intent.asset.contractAddress);
        const ownWallet = await reader.jettonWalletAddress(master, source);
        const held = await reader.jettonBalance(ownWallet);
        if (held < r.amount)
          throw new BaseError(
            'insufficient_funds',
            `${sourceText} holds ${fromBaseUnits(held, intent.asset.decimals)} ${intent.asset.symbol}, less than ${fromBaseUnits(r.amount, intent.asset.decimals)}`,
          );
        fee = JETTON_ATTACHED + TON_FEE_BOUND;
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
        fee = TON_FEE_BOUND;
        if (info.balance < r.amount + fee)
          throw new BaseError(
            'insufficient_funds',
            `${sourceText} holds ${ton(info.balance)} and this needs ${ton(r.amount + fee)} with fees`,
          );
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
    },

    async sign(unsigned: UnsignedWithdrawal, secret: WalletSecret, derivationIndexes: number[]): Promise<SignedWithdrawal> {
      const p = payloadOf(unsigned);
      const seed = secret.seed();
      let key: { secretKey: Buffer; publicKey: Buffer };
      try {
        key = tonKey(seed, derivationIndexes[0] ?? 0);
      } finally {
        seed.fill(0);
      }
      try {
        const wallet = walletOf(p.network, key.publicKey);
        if (wallet.address.toRawString() !== p.source)
          throw new BaseError('internal', 'the derived key does not control the source wallet');
        const body = wallet.createTransfer({
          seqno: p.seqno,
          secretKey: key.secretKey,
          timeout: p.validUntil,
          sendMode: SEND_MODE,
          messages: [
            internal({
              to: Address.parseRaw(p.message.to),
              value: BigInt(p.message.value),
              bounce: p.message.bounce,
              body: p.message.body ? Cell.fromBase64(p.message.body) : undefined,
            }),
          ],
        });
        const ext = external({ to: wallet.address, init: p.deploy ? wallet.init : undefined, body });
        const raw = beginCell().store(storeMessage(ext)).endCell().toBoc().toString('base64');
        return { raw, txHash: messageHash(raw) };
      } finally {
        key.secretKey.fill(0);
      }
    },

    checkSigned(prepared: UnsignedWithdrawal, raw: string, fresh?: UnsignedWithdrawal): CheckedSignedWithdrawal {
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
    },

    async broadcast(signed: SignedWithdrawal, reader: TonReader): Promise<void> {
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
    },

    async verify(unsigned: UnsignedWithdrawal, txHash: string, reader: TonReader): Promise<WithdrawalVerdict> {
      const p = payloadOf(unsigned);
      const source = Address.parseRaw(p.source);
      // Clock and seqno before the history: a message that lands after these reads is in it.
      const now = Math.floor(Date.now() / 1000);
      const nextSeqno = await reader.seqno(source);
      const found = await sourceTransaction(reader, source, txHash, p);
      if (found === 'unknown') return { status: 'pending', confirmations: 0 };
      if (!found) {
        // Not in the wallet's history since it could have landed. Its seqno used by another message:
        // it can never land (as an EVM nonce taken by another transaction).
        if (nextSeqno > p.seqno) return { status: 'rejected', confirmations: 0, reason: 'mempool_dropped' };
        // The wallet refuses the message after valid_until: once the clock is past it (with a margin), never.
        if (now > p.validUntil + 30) return { status: 'rejected', confirmations: 0, reason: 'expired' };
        return { status: 'missing', confirmations: 0 };
      }
      const d = found.description;
      const out = [...found.outMessages.values()].find((m) => m.info.type === 'internal');
      const fwd = out && out.info.type === 'internal' ? out.info.forwardFee : 0n;
      let fee = found.totalFees.coins + fwd;
      const blockNumber = await reader.head();
      const onChain = { txHash: found.hash().toString('hex') };
      const walletOk = d.type === 'generic' && d.computePhase.type === 'vm' && d.computePhase.success && d.actionPhase?.success === true;
      if (!walletOk || !out || out.info.type !== 'internal')
        return { status: 'rejected', confirmations: 1, fee, blockNumber, reason: 'failed_on_chain' };
      // Follow the message: the destination's transaction that received it.
      const next = await receivedBy(reader, out.info.dest, source, out.info.createdLt);
      if (!next) return { status: 'pending', confirmations: 0 };
      if (bounced(next)) return { status: 'rejected', confirmations: 1, fee, blockNumber, reason: 'failed_on_chain', ...onChain };
      if (p.jetton) {
        // Our jetton wallet sent internal_transfer to the recipient's; the excess comes back to the wallet.
        const hop = [...next.outMessages.values()].find((m) => m.info.type === 'internal');
        if (!hop || hop.info.type !== 'internal')
          return { status: 'rejected', confirmations: 1, fee, blockNumber, reason: 'failed_on_chain' };
        const credited = await receivedBy(reader, hop.info.dest, out.info.dest, hop.info.createdLt);
        if (!credited) return { status: 'pending', confirmations: 0 };
        if (bounced(credited)) return { status: 'rejected', confirmations: 1, fee, blockNumber, reason: 'failed_on_chain', ...onChain };
        const excess = await excessReturned(reader, source, found.lt, hop.info.dest);
        if (excess === null) return { status: 'pending', confirmations: 0 };
        // What the wallet lost beyond its own transaction: the attached TON the jetton wallets kept, and
        // the gas of taking the excess back.
        fee += BigInt(p.jetton.attached) - excess.value + excess.fees;
      }
      return { status: 'confirmed', confirmations: 1, fee, blockNumber, ...onChain };
    },
  });
}

/** Pages of the source's history (32 transactions each) read back at most, looking for a withdrawal's. */
const HISTORY_PAGES = 20;
const PAGE = 32;

/**
 * An account's transactions, newest first, with the item each came from, page by page (toncenter's
 * lt + hash paging), at most HISTORY_PAGES pages. `complete` after the loop: the whole history was
 * read (false: the page budget ran out first).
 */
async function* history(reader: TonReader, account: Address, state = { complete: false }) {
  let from: RawTransactionItem['transaction_id'] | undefined;
  for (let page = 0; page < HISTORY_PAGES; page++) {
    const items = await reader.transactions(account, PAGE, from);
    // A page that starts at `from` repeats it.
    for (const item of from ? items.slice(1) : items) yield { item, tx: loadTransaction(Cell.fromBase64(item.data).beginParse()) };
    const last = items[items.length - 1];
    if (items.length < PAGE || !last) {
      state.complete = true;
      return;
    }
    from = last.transaction_id;
  }
}

/**
 * The source wallet's transaction for the message (its inbound external message's hash, or once
 * recorded the transaction's own hash), searched back to the earliest moment it could have landed
 * (valid_until less the validity the service allows and the skew): absence there is proof it did
 * not land. A busy wallet's newest page is not enough: a deposit burst after the withdrawal pushed
 * it out of the 32 newest, and the withdrawal read as expired while it had paid. 'unknown': that
 * moment is further back than HISTORY_PAGES pages.
 */
async function sourceTransaction(
  reader: TonReader,
  source: Address,
  txHash: string,
  p: TonPayload,
): Promise<Transaction | null | 'unknown'> {
  const earliest = p.validUntil - VALID_FOR_SECONDS - VALID_UNTIL_SKEW_SECONDS;
  const read = { complete: false };
  for await (const { item, tx } of history(reader, source, read)) {
    if (inMessageHash(tx) === txHash || tx.hash().toString('hex') === txHash) return tx;
    if (item.utime < earliest) return null;
  }
  return read.complete ? null : 'unknown';
}

const OP_SIGNED_EXTERNAL = 0x7369676e;

/** What a v5r1 external message asks its wallet to do (one plain send), read from its bytes. */
function readSignedTransfer(raw: string) {
  const ext = loadMessage(Cell.fromBase64(raw).beginParse());
  if (ext.info.type !== 'external-in') throw new Error('not an external message');
  const body = ext.body.beginParse();
  if (body.loadUint(32) !== OP_SIGNED_EXTERNAL) throw new Error('not a signed request');
  body.loadUint(32); // wallet id
  const validUntil = body.loadUint(32);
  const seqno = body.loadUint(32);
  const list = body.loadMaybeRef();
  if (!list || body.loadBit()) throw new Error('not a plain list of sends');
  const actions = loadOutList(list.beginParse());
  const send = actions[0];
  if (actions.length !== 1 || send?.type !== 'sendMsg' || send.outMsg.info.type !== 'internal')
    throw new Error('not exactly one internal message');
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

function jettonTransferOf(body: string | null): JettonTransfer | null {
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

/**
 * The receiver failed and sent the value back (its bounce phase ran). An undeployed wallet that
 * took a non-bounceable transfer aborts too, but keeps the value: that transfer is delivered.
 */
const bounced = (tx: Transaction): boolean => tx.description.type === 'generic' && tx.description.bouncePhase?.type === 'ok';

async function receivedBy(reader: TonReader, account: Address, from: Address, createdLt: bigint): Promise<Transaction | null> {
  // Back to the message's creation: a busy recipient (an exchange) may have had many since.
  for await (const { tx } of history(reader, account)) {
    const m = tx.inMessage;
    if (m?.info.type === 'internal' && m.info.src.equals(from) && m.info.createdLt === createdLt) return tx;
    if (tx.lt < createdLt) return null;
  }
  return null;
}

/**
 * The `excesses` the wallet received after its jetton send from the recipient's jetton wallet (the
 * first one: another withdrawal's, or anyone's, is not this one's), and that transaction's fees;
 * null while it has not arrived.
 */
async function excessReturned(
  reader: TonReader,
  wallet: Address,
  afterLt: bigint,
  sender: Address,
): Promise<{ value: bigint; fees: bigint } | null> {
  let first: { value: bigint; fees: bigint } | null = null;
  for await (const { tx } of history(reader, wallet)) {
    if (tx.lt <= afterLt) break;
    const m = tx.inMessage;
    if (m?.info.type !== 'internal' || !m.info.src.equals(sender)) continue;
    const body = m.body.beginParse();
    // Newest first: the last match read is the first to arrive.
    if (body.remainingBits >= 32 && body.loadUint(32) === OP_EXCESSES) first = { value: m.info.value.coins, fees: tx.totalFees.coins };
  }
  return first;
}
