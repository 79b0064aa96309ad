import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type WebSocket, WebSocketServer } from 'ws';
import { Wallet, decode, hashes, verifySignature } from 'xrpl';

/**
 * A RECORDED-RESPONSE SERVER for rippled's WebSocket API, on loopback. No rippled or XRP Ledger
 * emulator installs here, so this stands in for a node:
 *
 * - the ledger it starts from is a real validated mainnet ledger (`test/fixtures/xrp/`, 87704323,
 *   22 transactions, exactly as rippled returned it in API v1); `recordedLedger()` appends real
 *   recorded transactions (the tagged deposit c2b8df46, the partial payments) in a ledger this
 *   server makes up at the next index; answers have the shapes of the recorded rippled responses in
 *   `test/fixtures/xrp/rippled-responses.json` (xrpl.js's fixtures: account_info, server_info,
 *   submit, tx; the engine results tefPAST_SEQ, tecUNFUNDED_PAYMENT, terQUEUED as mainnet answered);
 *   API v2 requests get the v2 shapes (`tx_json`, `meta`, `DeliverMax`), converted field for field;
 * - transactions are real signed transactions: `submit` decodes the blob with xrpl, refuses it
 *   unless its signature verifies, and hashes it with xrpl (SHA-512Half with the TXN prefix);
 * - it EXECUTES ONLY WHAT A TEST NEEDS of the ledger's rules: sequence numbers (tefPAST_SEQ,
 *   terPRE_SEQ), LastLedgerSequence (tefMAX_LEDGER), the base fee, the reserve (tecUNFUNDED_PAYMENT,
 *   tecNO_DST_INSUF_XRP), XRP balances and trust-line balances. No paths, no offers, no queue, no
 *   consensus. A partial payment delivers what the test says. What a test proves against it is
 *   how walletd reads and judges rippled's answers, never that the XRP Ledger would produce them.
 *
 * Ledgers close only when a test calls `close()` (or `autoClose`); `close({ validate: false })`
 * leaves the new ledger closed but not validated until `validate()`. Reserve: 1 XRP base, 0.2 XRP
 * per owned object (mainnet's since December 2024); base fee 10 drops.
 */

export const XRP_FIXTURES = join(__dirname, '..', '..', 'fixtures', 'xrp');
export const xrpFixture = (name: string) => JSON.parse(readFileSync(join(XRP_FIXTURES, name), 'utf8'));

export const XRP_RESERVE_BASE = 1_000_000n;
export const XRP_RESERVE_INC = 200_000n;
export const XRP_BASE_FEE = 10n;
/** Issued balances are kept in 10^-15 units of the currency. */
const IOU_SCALE = 15;

type Json = Record<string, any>;

interface Account {
  balance: bigint;
  sequence: number;
  ownerCount: number;
  flags: number;
}

interface Entry {
  /** The transaction in API v1 form (fields at the top, `hash`), without `metaData`. */
  tx: Json;
  meta: Json;
}

interface Ledger {
  index: number;
  hash: string;
  parentHash: string;
  closeTime: number;
  entries: Entry[];
  /** A recorded ledger's own header fields, sent as they were. */
  recorded?: Json;
}

const ENGINE: Record<string, [number, string]> = {
  tesSUCCESS: [0, 'The transaction was applied. Only final in a validated ledger.'],
  tefALREADY: [-198, 'The exact transaction was already in this ledger.'],
  tefPAST_SEQ: [-190, 'This sequence number has already passed.'],
  tefMAX_LEDGER: [-186, 'Ledger sequence too high.'],
  telINSUF_FEE_P: [-394, 'Fee insufficient.'],
  terPRE_SEQ: [-92, 'Missing/inapplicable prior transaction.'],
  terQUEUED: [-89, 'Held until escalated fee drops.'],
  tecUNFUNDED_PAYMENT: [104, 'Insufficient XRP balance to send.'],
  tecNO_DST_INSUF_XRP: [125, 'Destination does not exist. Too little XRP sent to create it.'],
  tecPATH_DRY: [128, 'Path could not send partial amount.'],
  tecPATH_PARTIAL: [101, 'Path could not send full amount.'],
  tecNO_DST: [124, 'Destination does not exist. Send XRP to create it.'],
};

const sha512Half = (...parts: string[]) => createHash('sha512').update(parts.join('|')).digest('hex').slice(0, 64).toUpperCase();
const TF_PARTIAL_PAYMENT = 0x00020000;

/** Decimal string ↔ 10^-15 units (the harness's own bookkeeping of issued balances). */
export function iouUnits(value: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(value);
  if (!m) throw new Error(`harness: unsupported issued value ${value}`);
  const fraction = (m[3] ?? '').padEnd(IOU_SCALE, '0').slice(0, IOU_SCALE);
  const units = BigInt(`${m[2]}${fraction}`);
  return m[1] === '-' ? -units : units;
}
export function iouValue(units: bigint): string {
  const neg = units < 0n;
  const s = (neg ? -units : units).toString().padStart(IOU_SCALE + 1, '0');
  const frac = s.slice(-IOU_SCALE).replace(/0+$/, '');
  return `${neg ? '-' : ''}${s.slice(0, -IOU_SCALE)}${frac ? `.${frac}` : ''}`;
}

export interface IncomingPayment {
  /** Destination account. */
  to: string;
  tag?: number;
  /** Drops as a string, or an issued amount. */
  amount: string | { currency: string; issuer: string; value: string };
  /** Set tfPartialPayment and deliver only this much (drops or issued value). */
  partialDelivered?: string;
  /** An outcome the ledger would have produced for reasons this server does not model (tec codes). */
  result?: string;
}

export class RecordedRippled {
  readonly ledgers = new Map<number, Ledger>();
  validated: number;
  closed: number;
  readonly accounts = new Map<string, Account>();
  readonly lines = new Map<string, bigint>();
  readonly requests: Json[] = [];
  /** The payer the server signs incoming test payments with (a deterministic key, funded at start). */
  readonly payer: Wallet;
  private open: Entry[] = [];
  private readonly replays = new Map<string, Json[]>();
  private server: WebSocketServer | null = null;
  private timer: NodeJS.Timeout | null = null;
  private validatedState = new Map<string, Account>();
  private validatedLines = new Map<string, bigint>();
  url = '';
  /**
   * Answer every submit with terQUEUED and keep nothing (a queue that evicts it): the transaction
   * never lands, so its LastLedgerSequence passes.
   */
  queueOnly = false;

  constructor() {
    const recorded = xrpFixture('xrp-mainnet-ledger-87704323.json').data;
    const l = recorded.ledger;
    const entries: Entry[] = l.transactions.map((t: Json) => {
      const { metaData, ...tx } = t;
      return { tx, meta: metaData };
    });
    this.ledgers.set(recorded.ledger_index, {
      index: recorded.ledger_index,
      hash: recorded.ledger_hash,
      parentHash: l.parent_hash,
      closeTime: l.close_time,
      entries,
      recorded: l,
    });
    this.validated = recorded.ledger_index;
    this.closed = recorded.ledger_index;
    this.payer = Wallet.fromEntropy(new Uint8Array(16).fill(7));
    this.fund(this.payer.classicAddress, 100_000_000_000n);
    this.snapshot();
  }

  async start(): Promise<this> {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    server.on('connection', (socket) => this.serve(socket));
    this.server = server;
    this.url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    const server = this.server;
    this.server = null;
    if (!server) return;
    for (const client of server.clients) client.terminate();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Close (and validate) a ledger every `ms`, like a network would. */
  autoClose(ms: number): void {
    this.timer = setInterval(() => this.close(), ms);
    this.timer.unref();
  }

  fund(account: string, drops: bigint, options: { ownerCount?: number; flags?: number } = {}): void {
    const a = this.accounts.get(account);
    if (a) a.balance += drops;
    else
      this.accounts.set(account, {
        balance: drops,
        sequence: this.validated,
        ownerCount: options.ownerCount ?? 0,
        flags: options.flags ?? 0,
      });
    if (options.flags !== undefined) (this.accounts.get(account) as Account).flags = options.flags;
    if (options.ownerCount !== undefined) (this.accounts.get(account) as Account).ownerCount = options.ownerCount;
  }

  /** A trust line holding `value` (the account's owner count grows by one, as on the ledger). */
  trust(account: string, currency: string, issuer: string, value = '0'): void {
    const key = `${account}|${currency}|${issuer}`;
    if (!this.lines.has(key)) {
      const a = this.accounts.get(account);
      if (a) a.ownerCount += 1;
    }
    this.lines.set(key, (this.lines.get(key) ?? 0n) + iouUnits(value));
  }

  /** A payment from the server's payer, signed with xrpl and applied like a submitted one. Returns its hash. */
  pay(p: IncomingPayment): string {
    const tx: Json = {
      TransactionType: 'Payment',
      Account: this.payer.classicAddress,
      Destination: p.to,
      Amount: p.amount,
      Fee: '12',
      Sequence: (this.accounts.get(this.payer.classicAddress) as Account).sequence,
      LastLedgerSequence: this.closed + 20,
      ...(p.tag !== undefined ? { DestinationTag: p.tag } : {}),
      ...(p.partialDelivered !== undefined ? { Flags: TF_PARTIAL_PAYMENT } : {}),
    };
    if (typeof p.amount !== 'string') this.trust(this.payer.classicAddress, p.amount.currency, p.amount.issuer, p.amount.value);
    const { tx_blob } = this.payer.sign(tx as never);
    const result = this.apply(tx_blob, p);
    if (!result.startsWith('tes') && !result.startsWith('tec')) throw new Error(`harness: payment not applied (${result})`);
    return hashes.hashSignedTx(tx_blob);
  }

  /** Real recorded transactions (v1 entries with their real metaData) in the next ledger; no balances move. */
  includeRecorded(entries: { tx: Json; meta: Json }[]): void {
    for (const e of entries) this.open.push({ tx: structuredClone(e.tx), meta: structuredClone(e.meta) });
  }

  /** Answer the next request of `command` with a recorded response, verbatim (its id replaced by the request's). */
  replay(command: string, response: Json): void {
    this.replays.set(command, [...(this.replays.get(command) ?? []), response]);
  }

  /** Forget an open (not yet closed) transaction, as a node whose queue evicts it; the fee it claimed stays claimed. */
  forget(hash: string): void {
    this.open = this.open.filter((e) => e.tx.hash !== hash);
  }

  /** Seal the open transactions into the next ledger; validated unless `validate: false`. */
  close(options: { validate?: boolean } = {}): number {
    const parent = this.ledgers.get(this.closed) as Ledger;
    const index = this.closed + 1;
    const entries = this.open.map((e, i) => ({ tx: e.tx, meta: { ...e.meta, TransactionIndex: i } }));
    this.open = [];
    const hash = sha512Half(String(index), parent.hash, ...entries.map((e) => e.tx.hash));
    this.ledgers.set(index, { index, hash, parentHash: parent.hash, closeTime: parent.closeTime + 4, entries });
    this.closed = index;
    if (options.validate !== false) this.validate();
    return index;
  }

  validate(): void {
    this.validated = this.closed;
    this.snapshot();
  }

  private snapshot(): void {
    this.validatedState = new Map([...this.accounts].map(([k, v]) => [k, { ...v }]));
    this.validatedLines = new Map(this.lines);
  }

  /** Where a transaction is: in a closed ledger (index), open (0), or unknown (undefined). */
  find(hash: string): { ledger: number; entry: Entry } | { ledger: 0; entry: Entry } | undefined {
    for (const [index, l] of this.ledgers) {
      const entry = l.entries.find((e) => e.tx.hash === hash);
      if (entry) return { ledger: index, entry };
    }
    const entry = this.open.find((e) => e.tx.hash === hash);
    return entry ? { ledger: 0, entry } : undefined;
  }

  // ---- the rippled rules this server models ----

  private apply(blob: string, incoming?: IncomingPayment): string {
    const tx = decode(blob) as Json;
    const hash = hashes.hashSignedTx(blob);
    const known = this.find(hash);
    if (known) return known.ledger === 0 ? 'tefALREADY' : 'tefPAST_SEQ';
    const sender = this.accounts.get(tx.Account);
    if (!sender) return 'terNO_ACCOUNT';
    if (tx.Sequence < sender.sequence) return 'tefPAST_SEQ';
    if (tx.Sequence > sender.sequence) return 'terPRE_SEQ';
    if (tx.LastLedgerSequence !== undefined && tx.LastLedgerSequence < this.closed + 1) return 'tefMAX_LEDGER';
    const fee = BigInt(tx.Fee);
    if (fee < XRP_BASE_FEE) return 'telINSUF_FEE_P';
    if (sender.balance < fee) return 'terINSUF_FEE_B';
    // From here the fee is claimed and the sequence consumed (tes or tec).
    sender.balance -= fee;
    sender.sequence += 1;
    let result = incoming?.result ?? 'tesSUCCESS';
    let delivered: unknown;
    if (result === 'tesSUCCESS' && tx.TransactionType === 'Payment') {
      const outcome = this.deliver(tx, sender, incoming?.partialDelivered);
      result = outcome.result;
      delivered = outcome.delivered;
    }
    const meta: Json = {
      AffectedNodes: [
        {
          ModifiedNode: {
            FinalFields: {
              Account: tx.Account,
              Balance: sender.balance.toString(),
              Flags: sender.flags,
              OwnerCount: sender.ownerCount,
              Sequence: sender.sequence,
            },
            LedgerEntryType: 'AccountRoot',
            PreviousFields: { Sequence: sender.sequence - 1 },
          },
        },
      ],
      TransactionResult: result,
      ...(result === 'tesSUCCESS' && delivered !== undefined ? { delivered_amount: delivered } : {}),
    };
    this.open.push({ tx: { ...tx, hash }, meta });
    return result;
  }

  private deliver(tx: Json, sender: Account, partial?: string): { result: string; delivered?: unknown } {
    const partialFlag = ((Number(tx.Flags ?? 0) >>> 0) & TF_PARTIAL_PAYMENT) !== 0;
    if (typeof tx.Amount === 'string') {
      const amount = partialFlag && partial !== undefined ? BigInt(partial) : BigInt(tx.Amount);
      const reserve = XRP_RESERVE_BASE + XRP_RESERVE_INC * BigInt(sender.ownerCount);
      if (sender.balance - amount < reserve) return { result: 'tecUNFUNDED_PAYMENT' };
      const dest = this.accounts.get(tx.Destination);
      if (!dest && amount < XRP_RESERVE_BASE) return { result: 'tecNO_DST_INSUF_XRP' };
      sender.balance -= amount;
      if (dest) dest.balance += amount;
      else this.accounts.set(tx.Destination, { balance: amount, sequence: this.closed + 1, ownerCount: 0, flags: 0 });
      return { result: 'tesSUCCESS', delivered: amount.toString() };
    }
    const { currency, issuer } = tx.Amount;
    const value = partialFlag && partial !== undefined ? partial : tx.Amount.value;
    const units = iouUnits(value);
    if (!this.accounts.has(tx.Destination)) return { result: 'tecNO_DST' };
    const to = `${tx.Destination}|${currency}|${issuer}`;
    if (!this.lines.has(to) && tx.Destination !== issuer) return { result: 'tecPATH_DRY' };
    const from = `${tx.Account}|${currency}|${issuer}`;
    if (tx.Account !== issuer) {
      const held = this.lines.get(from) ?? 0n;
      if (held < units) return { result: 'tecPATH_PARTIAL' };
      this.lines.set(from, held - units);
    }
    if (tx.Destination !== issuer) this.lines.set(to, (this.lines.get(to) ?? 0n) + units);
    return { result: 'tesSUCCESS', delivered: { currency, issuer, value: iouValue(units) } };
  }

  // ---- the WebSocket API ----

  private serve(socket: WebSocket): void {
    socket.on('message', (data) => {
      let req: Json;
      try {
        req = JSON.parse(String(data));
      } catch {
        return;
      }
      this.requests.push(req);
      const recorded = this.replays.get(req.command)?.shift();
      if (recorded) {
        socket.send(JSON.stringify({ ...recorded, id: req.id }));
        return;
      }
      const v2 = (req.api_version ?? 1) >= 2;
      let reply: Json;
      try {
        reply = { id: req.id, status: 'success', type: 'response', result: this.answer(req, v2), api_version: req.api_version };
      } catch (e) {
        const err = e as { rippled?: Json };
        if (!err.rippled) throw e;
        reply = { id: req.id, status: 'error', type: 'response', ...err.rippled, request: req, api_version: req.api_version };
      }
      socket.send(JSON.stringify(reply));
    });
  }

  private fail(error: string, error_code: number, error_message: string, extra: Json = {}): never {
    throw Object.assign(new Error(error), { rippled: { error, error_code, error_message, ...extra } });
  }

  private answer(req: Json, v2: boolean): Json {
    switch (req.command) {
      case 'ping':
        return {};
      case 'server_info':
        return {
          info: {
            build_version: '2.3.0',
            complete_ledgers: `87704323-${this.closed}`,
            network_id: 0,
            server_state: 'full',
            validated_ledger: {
              age: 1,
              base_fee_xrp: 0.00001,
              hash: (this.ledgers.get(this.validated) as Ledger).hash,
              reserve_base_xrp: 1,
              reserve_inc_xrp: 0.2,
              seq: this.validated,
            },
          },
        };
      case 'server_state':
        return {
          state: {
            build_version: '2.3.0',
            complete_ledgers: `87704323-${this.closed}`,
            server_state: 'full',
            validated_ledger: {
              base_fee: Number(XRP_BASE_FEE),
              close_time: (this.ledgers.get(this.validated) as Ledger).closeTime,
              hash: (this.ledgers.get(this.validated) as Ledger).hash,
              reserve_base: Number(XRP_RESERVE_BASE),
              reserve_inc: Number(XRP_RESERVE_INC),
              seq: this.validated,
            },
          },
        };
      case 'fee':
        return {
          current_ledger_size: String(this.open.length),
          current_queue_size: '0',
          drops: { base_fee: '10', median_fee: '5000', minimum_fee: '10', open_ledger_fee: '10' },
          expected_ledger_size: '24',
          ledger_current_index: this.closed + 1,
          levels: { median_level: '128000', minimum_level: '256', open_ledger_level: '256', reference_level: '256' },
          max_queue_size: '480',
        };
      case 'ledger':
        return this.ledgerAnswer(req, v2);
      case 'account_info': {
        const current = req.ledger_index === 'current';
        const a = (current ? this.accounts : this.validatedState).get(req.account);
        if (!a)
          this.fail('actNotFound', 19, 'Account not found.', { account: req.account, ledger_index: this.validated, validated: !current });
        return {
          account_data: {
            Account: req.account,
            Balance: a.balance.toString(),
            Flags: a.flags,
            LedgerEntryType: 'AccountRoot',
            OwnerCount: a.ownerCount,
            Sequence: a.sequence,
          },
          ...(current ? { ledger_current_index: this.closed + 1 } : { ledger_index: this.validated, validated: true }),
        };
      }
      case 'account_lines': {
        if (!this.validatedState.has(req.account)) this.fail('actNotFound', 19, 'Account not found.');
        const lines = [...this.validatedLines]
          .map(([k, units]) => ({ k: k.split('|'), units }))
          .filter(({ k }) => k[0] === req.account && (req.peer === undefined || k[2] === req.peer))
          .map(({ k, units }) => ({
            account: k[2],
            balance: iouValue(units),
            currency: k[1],
            limit: '1000000000',
            limit_peer: '0',
            quality_in: 0,
            quality_out: 0,
          }));
        return { account: req.account, ledger_index: this.validated, lines, validated: true };
      }
      case 'submit': {
        let blob: string = req.tx_blob;
        let tx: Json;
        try {
          tx = decode(blob) as Json;
        } catch {
          this.fail('invalidTransaction', 71, 'fails local checks: Invalid field.');
        }
        if (!verifySignature(blob)) this.fail('invalidTransaction', 71, 'fails local checks: Invalid signature.');
        const result = this.queueOnly ? 'terQUEUED' : this.apply(blob);
        blob = blob.toUpperCase();
        const [code, message] = ENGINE[result] ?? [0, result];
        const applied = result.startsWith('tes') || result.startsWith('tec');
        return {
          accepted: applied || result === 'terQUEUED',
          applied,
          broadcast: applied,
          engine_result: result,
          engine_result_code: code,
          engine_result_message: message,
          kept: true,
          queued: false,
          tx_blob: blob,
          tx_json: { ...tx, hash: hashes.hashSignedTx(blob) },
        };
      }
      case 'tx': {
        const found = this.find(req.transaction);
        if (!found || found.ledger === 0 || found.ledger > this.closed) {
          const min = req.min_ledger;
          const max = req.max_ledger;
          const searchedAll = min !== undefined && max !== undefined && max <= this.validated && min >= 87704323;
          this.fail('txnNotFound', 29, 'Transaction not found.', min !== undefined ? { searched_all: searchedAll } : {});
        }
        const ledger = this.ledgers.get(found.ledger) as Ledger;
        const validated = found.ledger <= this.validated;
        return v2
          ? {
              hash: found.entry.tx.hash,
              ledger_hash: ledger.hash,
              ledger_index: found.ledger,
              meta: found.entry.meta,
              tx_json: v2Tx(found.entry.tx),
              validated,
            }
          : { ...found.entry.tx, meta: found.entry.meta, ledger_index: found.ledger, validated };
      }
      default:
        this.fail('unknownCmd', 32, 'Unknown method.');
    }
  }

  private ledgerAnswer(req: Json, v2: boolean): Json {
    const which = req.ledger_index;
    const index =
      which === 'validated' ? this.validated : which === 'closed' ? this.closed : which === 'current' ? this.closed + 1 : Number(which);
    const l = this.ledgers.get(index);
    if (!l) this.fail('lgrNotFound', 21, 'ledgerNotFound');
    const validated = index <= this.validated;
    const transactions = req.transactions
      ? l.entries.map((e) =>
          req.expand ? (v2 ? { hash: e.tx.hash, meta: e.meta, tx_json: v2Tx(e.tx) } : { ...e.tx, metaData: e.meta }) : e.tx.hash,
        )
      : undefined;
    const header = l.recorded
      ? { ...l.recorded, transactions: undefined }
      : {
          closed: true,
          ledger_hash: l.hash,
          ledger_index: v2 ? l.index : String(l.index),
          parent_hash: l.parentHash,
          close_time: l.closeTime,
        };
    return {
      ledger: { ...header, ...(v2 ? { ledger_index: l.index } : {}), ...(transactions ? { transactions } : {}) },
      ledger_hash: l.hash,
      ledger_index: l.index,
      validated,
    };
  }
}

/** API v2's form of a transaction: `DeliverMax` for a Payment's `Amount`, no `hash` inside. */
function v2Tx(tx: Json): Json {
  const { hash: _hash, Amount, ...rest } = tx;
  if (Amount === undefined) return rest;
  return tx.TransactionType === 'Payment' ? { ...rest, DeliverMax: Amount } : { ...rest, Amount };
}

export async function startRecordedRippled(): Promise<RecordedRippled> {
  return new RecordedRippled().start();
}
