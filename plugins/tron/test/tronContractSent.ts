import type { Chain } from '@walletd/plugin-kit';
import type { ConformanceBlock } from '@walletd/plugin-kit/testing';
import { tronBase58, tronFixture } from '@walletd/test-harness';
import { type Json, tronBlock, word } from './tronRawBlock';

/**
 * TRX a contract sent, for the Tron scenario (tronScenario.ts): the recorded info 7c44d197 of a
 * java-tron 4.8.2 private network (its `internal_transactions`), its transaction made up here (not
 * recorded), and its twin with the internal transaction rejected.
 */
const internal = tronFixture('tron-privnet-internal-tx-7c44d197.json');
const sentInfo = internal.data.transactionInfo;
/** The call that carried the recorded info: made up (a TriggerSmartContract on the recorded contract). */
const sentTx = {
  txID: sentInfo.id,
  ret: [{ contractRet: 'SUCCESS' }],
  raw_data: {
    contract: [
      {
        type: 'TriggerSmartContract',
        parameter: { value: { owner_address: '41'.padEnd(42, '7'), contract_address: sentInfo.contract_address, data: '00000000' } },
      },
    ],
  },
};
const sentPair: [Json, Json] = [sentTx, sentInfo];
const sentRejected: [Json, Json] = [
  sentTx,
  { ...sentInfo, internal_transactions: sentInfo.internal_transactions.map((x: Json) => ({ ...x, rejected: true })) },
];
const SENT_HEADER = { number: BigInt(sentInfo.blockNumber), hash: word('5'), parentHash: word('6') };
const SENT = internal.expected.internal[0];

export function contractSentBlocks(scene: { chain: Chain; network: string }): ConformanceBlock[] {
  const { network } = scene;
  return [
    {
      ...scene,
      name: `tron/${network}: TRX a contract sent (internal_transactions of the recorded java-tron info 7c44d197), 1 sun, eventIndex 1e9`,
      raw: tronBlock(SENT_HEADER, [sentPair]),
      watched: [tronBase58(SENT.to)],
      expected: [
        {
          txHash: sentInfo.id,
          eventIndex: 1_000_000_000,
          to: tronBase58(SENT.to),
          amount: SENT.amountSun,
          assetKey: `tron:${network}:trx`,
          from: tronBase58(SENT.from),
          eventType: 'internal_transfer',
        },
      ],
    },
    {
      ...scene,
      name: `tron/${network}: the same internal transaction rejected (made up from the record: its frame reverted) credits nothing`,
      raw: tronBlock(SENT_HEADER, [sentRejected]),
      watched: [tronBase58(SENT.to)],
      expected: [],
    },
  ];
}
