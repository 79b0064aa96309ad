/**
 * The Solana bench's synthetic mainnet-like blocks (json encoding, as the reader asks for them):
 * votes, DEX-like token transactions with inner transfers and token balances, SOL transfers.
 */
const { randomBytes } = require('node:crypto');
const { getAddressDecoder } = require('@solana/kit');

const decoder = getAddressDecoder();
const key = () => decoder.decode(randomBytes(32));
const base58 = (n) => decoder.decode(randomBytes(32)).slice(0, n);
const sig = () => base58(44) + base58(44);
const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const VOTE = 'Vote111111111111111111111111111111111111111';
const SYSTEM = '11111111111111111111111111111111';

function voteTx() {
  const keys = [key(), key(), 'SysvarS1otHashes111111111111111111111111111', 'SysvarC1ock11111111111111111111111111111111', VOTE];
  return {
    transaction: {
      signatures: [sig()],
      message: {
        accountKeys: keys,
        header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 3 },
        recentBlockhash: key(),
        instructions: [{ programIdIndex: 4, accounts: [1, 2, 3, 0], data: base58(44) + base58(44) + base58(40), stackHeight: null }],
      },
    },
    meta: {
      err: null,
      status: { Ok: null },
      fee: 5000,
      preBalances: [27_000_000_000, 1_000_000_000_000, 1_169_280, 1_169_280, 1],
      postBalances: [26_999_995_000, 1_000_000_000_000, 1_169_280, 1_169_280, 1],
      preTokenBalances: [],
      postTokenBalances: [],
      innerInstructions: [],
      logMessages: [`Program ${VOTE} invoke [1]`, `Program ${VOTE} success`],
      loadedAddresses: { writable: [], readonly: [] },
      rewards: [],
      computeUnitsConsumed: 2100,
    },
    version: 'legacy',
  };
}

function tokenTx(watchedOwner, watchedAta, mint) {
  const n = 16;
  const keys = Array.from({ length: n }, key);
  keys[n - 1] = TOKEN;
  if (watchedAta) keys[3] = watchedAta;
  const balances = (delta) =>
    [2, 3, 4, 5, 6, 7].map((i) => ({
      accountIndex: i,
      mint: i % 2 === 0 ? mint : key(),
      owner: i === 3 && watchedOwner ? watchedOwner : key(),
      programId: TOKEN,
      uiTokenAmount: {
        amount: String(1_000_000 + i * 1000 + (i === 3 ? delta : 0)),
        decimals: 6,
        uiAmount: 1.0,
        uiAmountString: '1.0',
      },
    }));
  return {
    transaction: {
      signatures: [sig()],
      message: {
        accountKeys: keys,
        header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 4 },
        recentBlockhash: key(),
        instructions: [
          { programIdIndex: n - 2, accounts: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13], data: base58(40), stackHeight: null },
        ],
      },
    },
    meta: {
      err: null,
      status: { Ok: null },
      fee: 5000,
      preBalances: keys.map((_, i) => 2_039_280 + i),
      postBalances: keys.map((_, i) => 2_039_280 + i - (i === 0 ? 5000 : 0)),
      preTokenBalances: balances(0),
      postTokenBalances: balances(12_345),
      innerInstructions: [
        {
          index: 0,
          instructions: [
            { programIdIndex: n - 1, accounts: [2, 3, 0], data: base58(12), stackHeight: 2 },
            { programIdIndex: n - 1, accounts: [4, 5, 0], data: base58(12), stackHeight: 2 },
          ],
        },
      ],
      logMessages: [
        `Program ${keys[n - 2]} invoke [1]`,
        'Program log: Instruction: Swap',
        `Program ${TOKEN} invoke [2]`,
        'Program log: Instruction: Transfer',
        `Program ${TOKEN} consumed 4645 of 180000 compute units`,
        `Program ${TOKEN} success`,
        `Program ${TOKEN} invoke [2]`,
        'Program log: Instruction: Transfer',
        `Program ${TOKEN} consumed 4645 of 170000 compute units`,
        `Program ${TOKEN} success`,
        `Program data: ${base58(44)}${base58(44)}${base58(44)}`,
        `Program ${keys[n - 2]} consumed 48211 of 200000 compute units`,
        `Program ${keys[n - 2]} success`,
      ],
      loadedAddresses: { writable: [], readonly: [] },
      rewards: [],
      computeUnitsConsumed: 48211,
    },
    version: 0,
  };
}

function solTx(to) {
  const keys = [key(), to ?? key(), SYSTEM];
  return {
    transaction: {
      signatures: [sig()],
      message: {
        accountKeys: keys,
        header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 1 },
        recentBlockhash: key(),
        instructions: [{ programIdIndex: 2, accounts: [0, 1], data: base58(16), stackHeight: null }],
      },
    },
    meta: {
      err: null,
      status: { Ok: null },
      fee: 5000,
      preBalances: [5_000_000_000, 1_000_000, 1],
      postBalances: [4_899_995_000, 101_000_000, 1],
      preTokenBalances: [],
      postTokenBalances: [],
      innerInstructions: [],
      logMessages: [`Program ${SYSTEM} invoke [1]`, `Program ${SYSTEM} success`],
      loadedAddresses: { writable: [], readonly: [] },
      rewards: [],
      computeUnitsConsumed: 150,
    },
    version: 0,
  };
}

/** One getBlock answer (json encoding), as the node sends it. */
function syntheticBlock(slot, txs, owners, atas, mint) {
  const transactions = [];
  for (let i = 0; i < txs; i++) {
    const r = i % 12;
    if (r < 8) transactions.push(voteTx());
    else if (r < 11) {
      const hit = i % 300 === 8; // a few token credits to watched ATAs per block
      transactions.push(tokenTx(hit ? owners[i % owners.length] : null, hit ? atas[i % atas.length] : null, mint));
    } else transactions.push(solTx(i % 240 === 11 ? owners[i % owners.length] : null));
  }
  const result = {
    blockhash: key(),
    previousBlockhash: key(),
    parentSlot: slot - 1,
    blockHeight: slot - 10_000,
    blockTime: 1_700_000_000,
    transactions,
  };
  return JSON.stringify({ jsonrpc: '2.0', id: 1, result });
}

module.exports = { syntheticBlock, key };
