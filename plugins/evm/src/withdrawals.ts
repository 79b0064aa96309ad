import {
  BaseError,
  type BuildContext,
  type ChainReader,
  type CheckedSignedWithdrawal,
  type SignedWithdrawal,
  type UnsignedWithdrawal,
  type WalletSecret,
  type WithdrawalIntent,
  type WithdrawalVerbs,
  type WithdrawalVerdict,
  type VerifyContext,
  refusingUnreadableSigned,
} from '@walletd/plugin-kit';
import { HDNodeWallet, Transaction, keccak256 } from 'ethers';
import { checkEvmIntent } from './checkIntent';
import { TRANSFER_TOPIC } from './detectTransfers';
import { nodeRefusal } from './nodeRefusal';
import { type EvmTxPayload, quoteEvm, word } from './quote';
import type { EvmReader } from './evmReader';

/** A library's message about the caller's bytes, short enough for an error body. */
const reason = (e: unknown) =>
  (e instanceof Error ? ((e as { shortMessage?: string }).shortMessage ?? e.message) : String(e)).slice(0, 160);
const asEvm = (reader: ChainReader) => reader as EvmReader;

/** The node knows the transaction (in its pool or in a block). */
async function nodeHas(reader: ChainReader, txHash: string): Promise<boolean> {
  try {
    return (await asEvm(reader).call<unknown>('eth_getTransactionByHash', [txHash])) != null;
  } catch {
    return false;
  }
}

/**
 * One recipient per EVM transaction; the source is the address holding the funds (the first of
 * `sources`). Fees: EIP-1559 with twice the current base fee as the cap, so the transaction stays
 * valid through a few full blocks; `fee` is that upper bound until `verify` reports the real one.
 */
export function createEvmWithdrawals(): WithdrawalVerbs {
  return refusingUnreadableSigned('EVM transaction', {
    checkIntent: checkEvmIntent,
    async build(intent: WithdrawalIntent, reader: ChainReader, context?: BuildContext): Promise<UnsignedWithdrawal> {
      const evm = asEvm(reader);
      checkEvmIntent(intent);
      const [output] = intent.outputs;
      const from = intent.sources[0];
      const token = intent.asset.contractAddress;
      // First, so a token amount above the balance reads as that, not as a failed gas estimate.
      if (token && output && from && (await evm.balanceOf(from, intent.asset)) < output.amount)
        throw new BaseError('insufficient_funds', `${from} holds too little ${intent.asset.symbol}`);
      const { payload, fee, from: source } = await quoteEvm(evm, intent, context);
      // Refuse before anything is signed: the node's estimate does not always check balances.
      const native = await evm.balanceOf(source, { key: '', symbol: '', decimals: 0, contractAddress: null });
      if (native < BigInt(payload.value) + fee)
        throw new BaseError(
          'insufficient_funds',
          `${from} holds too little ${token ? 'native currency for gas' : 'for the amount plus gas'}`,
        );
      return { intent, payload, fee, sourceAddresses: [source] };
    },

    async quoteFee(intent: WithdrawalIntent, reader: ChainReader): Promise<bigint> {
      checkEvmIntent(intent);
      return (await quoteEvm(asEvm(reader), intent)).fee;
    },

    async sign(unsigned: UnsignedWithdrawal, secret: WalletSecret, derivationIndexes: number[]): Promise<SignedWithdrawal> {
      const p = unsigned.payload as EvmTxPayload;
      const index = derivationIndexes[0];
      if (index === undefined) throw new Error('a derivation index is required to sign');
      const seed = secret.seed();
      const key = HDNodeWallet.fromSeed(seed).derivePath(`m/44'/60'/0'/0/${index}`);
      seed.fill(0);
      if (key.address.toLowerCase() !== unsigned.sourceAddresses[0]?.toLowerCase()) {
        throw new Error('the derived key does not control the source address');
      }
      const raw = await key.signTransaction({
        type: 2,
        chainId: BigInt(p.chainId),
        nonce: p.nonce,
        to: p.to,
        value: BigInt(p.value),
        data: p.data,
        gasLimit: BigInt(p.gasLimit),
        maxFeePerGas: BigInt(p.maxFeePerGas),
        maxPriorityFeePerGas: BigInt(p.maxPriorityFeePerGas),
      });
      return { raw, txHash: keccak256(raw) };
    },

    /**
     * A transaction signed elsewhere pays the intent only if it is the prepared call exactly:
     * chain id, recipient (or token contract), value and calldata, signed by the source address.
     * The nonce must be the one the freshly built `unsigned` carries (the next one after the node's
     * and the in-flight withdrawals'): an old, already mined transaction or a nonce gap is refused.
     * Fees are the signer's choice, but the fee cap may not exceed twice the prepared one.
     */
    checkSigned(prepared: UnsignedWithdrawal, raw: string, fresh?: UnsignedWithdrawal): CheckedSignedWithdrawal {
      // Against the fresh build: its nonce is the next free one, its fee the current estimate.
      const unsigned = fresh ?? prepared;
      const p = unsigned.payload as EvmTxPayload;
      let tx: Transaction;
      try {
        tx = Transaction.from(raw);
      } catch (e) {
        throw new BaseError('unprocessable', `signedTransaction is not a serialized, signed EVM transaction: ${reason(e)}`);
      }
      const refuse = (what: string) => {
        throw new BaseError('unprocessable', `the signed transaction does not pay the prepared withdrawal: ${what}`);
      };
      if (!tx.signature) refuse('it is not signed');
      // The signer is recovered here: a signature no key can make (r or s zero or past the curve's
      // order) throws in the curve library.
      let signer: string | null;
      try {
        signer = tx.from;
      } catch (e) {
        throw new BaseError('unprocessable', `the signed transaction's signature is invalid, no key can make it (${reason(e)})`);
      }
      if (!signer) refuse('it is not signed');
      if (tx.chainId !== BigInt(p.chainId)) refuse(`chain id ${tx.chainId} instead of ${p.chainId}`);
      if ((tx.to ?? '').toLowerCase() !== p.to.toLowerCase()) refuse(`it is sent to ${tx.to} instead of ${p.to}`);
      if (tx.value !== BigInt(p.value)) refuse(`it moves ${tx.value} wei of value instead of ${p.value}`);
      if (tx.data.toLowerCase() !== p.data.toLowerCase()) refuse('its call data (token recipient or amount) differs');
      if (tx.nonce !== p.nonce) refuse(`its nonce is ${tx.nonce}; the next free nonce of the source is ${p.nonce}`);
      if ((signer ?? '').toLowerCase() !== (unsigned.sourceAddresses[0] ?? '').toLowerCase())
        refuse(`it is signed by ${signer}, not the source ${unsigned.sourceAddresses[0]}`);
      const maxFeePerGas = tx.maxFeePerGas ?? tx.gasPrice ?? 0n;
      const fee = tx.gasLimit * maxFeePerGas;
      if (fee > unsigned.fee * 2n) refuse(`its fee cap ${fee} wei is more than twice the prepared ${unsigned.fee}`);
      const payload: EvmTxPayload = {
        ...p,
        nonce: tx.nonce,
        gasLimit: tx.gasLimit.toString(),
        maxFeePerGas: maxFeePerGas.toString(),
        maxPriorityFeePerGas: (tx.maxPriorityFeePerGas ?? maxFeePerGas).toString(),
      };
      return { signed: { raw: tx.serialized, txHash: tx.hash as string }, payload, fee };
    },

    async broadcast(signed: SignedWithdrawal, reader: ChainReader): Promise<void> {
      let hash: string;
      try {
        hash = await asEvm(reader).call<string>('eth_sendRawTransaction', [signed.raw]);
      } catch (e) {
        // The node (or another backend behind the same endpoint) already has exactly these bytes.
        // Sending the same bytes again (a retry after a crash) is not a refusal, however the node
        // words it ("already known" on geth, "transaction already imported" on anvil, "nonce too
        // low" once it is mined): if the node has this very transaction, the broadcast happened.
        if (await nodeHas(reader, signed.txHash)) return;
        throw nodeRefusal(e);
      }
      if (hash.toLowerCase() !== signed.txHash.toLowerCase())
        throw new BaseError('node_error', 'the node reported another transaction hash');
    },

    /**
     * Paid only when mined, successful, and (for a token) carrying the matching Transfer log:
     * right contract, from the source, to the recipient, the exact amount; for the native asset,
     * the transaction itself from the source to the recipient with the exact value. Inclusion
     * alone is not payment: without that the withdrawal stays pending.
     */
    async verify(unsigned: UnsignedWithdrawal, txHash: string, reader: ChainReader, context?: VerifyContext): Promise<WithdrawalVerdict> {
      const evm = asEvm(reader);
      const receipt = await evm.call<{
        status: string;
        blockNumber: string;
        gasUsed: string;
        effectiveGasPrice: string;
        logs: { address: string; topics: string[]; data: string }[];
      } | null>('eth_getTransactionReceipt', [txHash]);
      if (!receipt) return notMined(evm, unsigned, txHash, context);
      const fee = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);
      const blockNumber = BigInt(receipt.blockNumber);
      if (receipt.status !== '0x1') return { status: 'rejected', confirmations: 0, fee, blockNumber, reason: 'failed_on_chain' };
      const { intent } = unsigned;
      const [output] = intent.outputs;
      const token = intent.asset.contractAddress;
      if (token && output) {
        const from = `0x${word(unsigned.sourceAddresses[0] ?? '0x')}`;
        const to = `0x${word(output.to)}`;
        const paid = receipt.logs.some(
          (l) =>
            l.address.toLowerCase() === token.toLowerCase() &&
            l.topics.length === 3 &&
            l.topics[0] === TRANSFER_TOPIC &&
            l.topics[1]?.toLowerCase() === from &&
            l.topics[2]?.toLowerCase() === to &&
            BigInt(l.data) === output.amount,
        );
        if (!paid) return { status: 'pending', confirmations: 0, blockNumber };
      } else if (output) {
        // A native payment is the transaction itself: success alone would confirm any mined
        // transaction under this hash (the conformance kit's "mined but not the intent").
        const tx = await evm.call<{ from: string; to: string | null; value: string } | null>('eth_getTransactionByHash', [txHash]);
        const paid =
          tx !== null &&
          tx.from.toLowerCase() === (unsigned.sourceAddresses[0] ?? '').toLowerCase() &&
          tx.to?.toLowerCase() === output.to.toLowerCase() &&
          BigInt(tx.value) === output.amount;
        if (!paid) return { status: 'pending', confirmations: 0, blockNumber };
      }
      const head = BigInt(await evm.call<string>('eth_blockNumber', []));
      return { status: 'confirmed', confirmations: Number(head - blockNumber + 1n), fee, blockNumber };
    },
  });
}

/** After every nonce already signed from this address (the in-flight withdrawals). */

/**
 * No receipt: in the node's pool (pending), gone for good because its nonce was used by another
 * transaction (rejected: `reorg` if it had been mined, else `mempool_dropped`), or gone but still
 * valid (missing: sending the same bytes again is safe, they can land only once).
 */
async function notMined(evm: EvmReader, unsigned: UnsignedWithdrawal, txHash: string, context?: VerifyContext): Promise<WithdrawalVerdict> {
  const known = await evm.call<unknown>('eth_getTransactionByHash', [txHash]);
  if (known) return { status: 'pending', confirmations: 0 };
  const from = unsigned.sourceAddresses[0] ?? '';
  const used = Number(BigInt(await evm.call<string>('eth_getTransactionCount', [from, 'latest'])));
  if (used > (unsigned.payload as EvmTxPayload).nonce) {
    // Mined between the two reads (or by another backend of a balanced endpoint): not gone.
    if (await evm.call<unknown>('eth_getTransactionReceipt', [txHash])) return { status: 'pending', confirmations: 0 };
    return { status: 'rejected', confirmations: 0, reason: context?.seenInBlock ? 'reorg' : 'mempool_dropped' };
  }
  return { status: 'missing', confirmations: 0 };
}
