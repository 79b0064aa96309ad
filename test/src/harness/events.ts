import { type Db, type EventType, recordEvent } from '@walletd/core';

let counter = 0;

/** Records a realistic deposit event through the real outbox write. */
export async function recordDeposit(db: Db, companyId: number, walletId: number, type: EventType = 'deposit.confirmed', amount = '1.5') {
  counter += 1;
  const status = type === 'deposit.detected' ? 'pending' : type === 'deposit.rejected' ? 'rejected' : 'confirmed';
  return db.transaction((trx) =>
    recordEvent(trx, {
      type,
      chain: 'ethereum',
      network: 'sepolia',
      companyId,
      walletId,
      data: {
        chain: 'ethereum',
        network: 'sepolia',
        txHash: `0x${counter.toString(16).padStart(64, '0')}`,
        addressId: 1,
        confirmations: status === 'pending' ? 1 : 12,
        status,
        direction: 'incoming',
        amount,
        asset: { key: 'ethereum:sepolia:eth', symbol: 'ETH', decimals: 18, contractAddress: null },
        fromAddress: '0x1111111111111111111111111111111111111111',
        toAddress: '0x2222222222222222222222222222222222222222',
        eventType: 'native_transfer',
        eventIndex: 0,
        ...(status === 'rejected' ? { reason: 'reorg' } : {}),
      },
    }),
  );
}
