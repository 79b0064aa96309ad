import { Address, SendMode, internal, toNano } from '@ton/core';
import { keyPairFromSeed } from '@ton/crypto';
import { WalletContractV5R1 } from '@ton/ton';
import type { UnsignedWithdrawal } from '@walletd/plugin-kit';
import type { TonPayload } from '../payload';
import { seqnoOfBody } from '../seqnoOf';
import type { TonReader } from '../reader';
import { verifyTonWithdrawal } from './verify';

const keys = keyPairFromSeed(Buffer.alloc(32, 7));
const wallet = WalletContractV5R1.create({ publicKey: keys.publicKey, walletId: { networkGlobalId: -239 } });
const validUntil = Math.floor(Date.now() / 1000) + 300;
const payload: TonPayload = {
  network: 'mainnet',
  source: wallet.address.toRawString(),
  seqno: 4,
  validUntil,
  deploy: false,
  message: {
    to: Address.parse('EQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0XggGG').toRawString(),
    value: '500000000',
    bounce: false,
    body: null,
  },
};
const unsigned = { payload, fee: 20_000_000n } as unknown as UnsignedWithdrawal;

it("reads the seqno of a v5r1 wallet's signed external body, as @ton/ton writes it", () => {
  const body = wallet.createTransfer({
    seqno: 42,
    secretKey: keys.secretKey,
    timeout: validUntil,
    sendMode: SendMode.PAY_GAS_SEPARATELY,
    messages: [internal({ to: wallet.address, value: toNano('0.1') })],
  });
  expect(seqnoOfBody(body)).toBe(42);
});

it('keeps a withdrawal pending when the seqno moved past it but the history does not show the message that took it yet', async () => {
  // The playground's TON run (fresh clone, 2026-11-25): the sandbox executed the withdrawal (seqno
  // 5) before its block was listed, and verify answered rejected mempool_dropped 0.3 s after the
  // broadcast, releasing funds that had moved. A liteserver behind another can do the same.
  const reader = {
    seqno: async () => 5,
    transactions: async () => [],
    head: async () => 10n,
  } as unknown as TonReader;
  expect(await verifyTonWithdrawal(unsigned, 'ab'.repeat(32), reader)).toEqual({ status: 'pending', confirmations: 0 });
});
