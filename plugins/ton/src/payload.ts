import { Cell, SendMode, type Transaction, beginCell, storeMessage } from '@ton/core';
import type { UnsignedWithdrawal } from '@walletd/plugin-kit';

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
/** How `sign` sends: fees paid apart from the value (the recipient gets the whole amount), errors ignored. */
export const SEND_MODE = SendMode.PAY_GAS_SEPARATELY + SendMode.IGNORE_ERRORS;
/** Clock difference allowed between the signer and this service when judging a message's valid_until. */
export const VALID_UNTIL_SKEW_SECONDS = 60;
export const OP_JETTON_TRANSFER = 0x0f8a7ea5;

/**
 * The most a withdrawal of this asset can cost its wallet in TON (`build`'s fee, `quoteFee`): a
 * TON transfer's fee bound, plus the TON attached to a jetton transfer (the jetton wallets' gas and
 * forward amount; the unused part comes back as excesses). The state-init of an undeployed wallet
 * rides in the same external message and is inside the bound.
 */
export const tonFeeCap = (asset: { contractAddress: string | null }): bigint =>
  asset.contractAddress ? JETTON_ATTACHED + TON_FEE_BOUND : TON_FEE_BOUND;

export const payloadOf = (u: UnsignedWithdrawal) => u.payload as TonPayload;

/** The external message's hash: the withdrawal's id until its wallet transaction exists. */
export const messageHash = (boc: string) => Cell.fromBase64(boc).hash().toString('hex');
export const inMessageHash = (tx: Transaction): string | null =>
  tx.inMessage ? beginCell().store(storeMessage(tx.inMessage)).endCell().hash().toString('hex') : null;
