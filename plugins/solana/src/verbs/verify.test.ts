import type { UnsignedWithdrawal } from '@walletd/plugin-kit';
import type { SolanaTxPayload } from '../payload';
import type { SolanaReader } from '../reader';
import { verifySolanaWithdrawal } from './verify';

const SOURCE = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const RECIPIENT = 'HN7cABqLq46Es1jh92dQQisAq662SmxELLLsHHe4YWrH';
const STRANGER = '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV';
const FEE = 5000n;

const unsigned: UnsignedWithdrawal = {
  intent: {
    chain: 'solana',
    network: 'devnet',
    asset: { key: 'solana:devnet:sol', symbol: 'SOL', decimals: 9, contractAddress: null },
    outputs: [{ to: RECIPIENT, amount: 1_000_001n }],
    sources: [SOURCE],
  },
  payload: {
    kind: 'sol',
    source: SOURCE,
    feePayer: SOURCE,
    recipient: RECIPIENT,
    amount: '1000001',
    signers: [SOURCE],
  } as Partial<SolanaTxPayload>,
  fee: FEE,
  sourceAddresses: [SOURCE],
};

/** A node answering for one successful transaction with these accounts and lamport balances (pre, post). */
function nodeWith(accounts: [string, bigint, bigint][]): SolanaReader {
  const answers: Record<string, unknown> = {
    getSignatureStatuses: { value: [{ slot: 100, err: null }] },
    getTransaction: {
      slot: 100,
      meta: {
        err: null,
        fee: Number(FEE),
        preBalances: accounts.map((a) => a[1].toString()),
        postBalances: accounts.map((a) => a[2].toString()),
      },
      transaction: { message: { accountKeys: accounts.map((a) => a[0]) } },
    },
  };
  return { call: async (method: string) => answers[method], head: async () => 101n } as unknown as SolanaReader;
}

describe('solana verify compares the mined transaction with the intent', () => {
  test('the exact amount from the source to the recipient, fee paid by the source: confirmed', async () => {
    const reader = nodeWith([
      [SOURCE, 10_000_000n, 10_000_000n - 1_000_001n - FEE],
      [RECIPIENT, 0n, 1_000_001n],
    ]);
    expect((await verifySolanaWithdrawal(unsigned, 'sig', reader)).status).toBe('confirmed');
  });

  test('the same amount to the recipient paid by someone else is not this withdrawal', async () => {
    const reader = nodeWith([
      [STRANGER, 10_000_000n, 10_000_000n - 1_000_001n - FEE],
      [RECIPIENT, 0n, 1_000_001n],
    ]);
    expect((await verifySolanaWithdrawal(unsigned, 'sig', reader)).status).toBe('pending');
  });

  test('a payload that is not the intent (another amount) is not confirmed', async () => {
    const other = { ...unsigned, intent: { ...unsigned.intent, outputs: [{ to: RECIPIENT, amount: 1_000_002n }] } };
    const reader = nodeWith([
      [SOURCE, 10_000_000n, 10_000_000n - 1_000_001n - FEE],
      [RECIPIENT, 0n, 1_000_001n],
    ]);
    expect((await verifySolanaWithdrawal(other, 'sig', reader)).status).toBe('pending');
  });
});
