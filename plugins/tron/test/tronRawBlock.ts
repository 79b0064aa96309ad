/**
 * The raw Tron block the kit's scenarios hand detect, as the reader splices it: getblockbynum's
 * block and gettransactioninfobyblocknum's infos, made up around recorded transactions.
 */
export type Json = Record<string, any>;

/** The block envelope the reader hands detect; `amountText` replaces a JSON amount verbatim (above 2^53 a double cannot hold it). */
export const bytes = (b: unknown, infos: unknown, amountText?: [string, string]) => {
  const text = `{"block":${JSON.stringify(b)},"infos":${JSON.stringify(infos)}}`;
  return new TextEncoder().encode(amountText ? text.replace(amountText[0], amountText[1]) : text);
};

/** The recorded transaction as getblockbynum lists it (gettransactionbyid's extra fields dropped). */
function plain(tx: Json): Json {
  const {
    blockNumber: _b,
    block_timestamp: _t,
    net_usage: _n,
    net_fee: _f,
    energy_usage: _e,
    energy_fee: _ef,
    energy_usage_total: _et,
    internal_transactions: _i,
    ...rest
  } = tx;
  return rest;
}

export const word = (c: string) => c.repeat(64).slice(0, 64);
export interface Header {
  number: bigint;
  hash: string;
  parentHash: string;
}
/** Recorded transactions and infos in a block made up here; each info names this block, as the node's would. */
export function tronBlock(h: Header, txs: [Json, Json][], amountText?: [string, string]): Uint8Array {
  const time = 1_738_600_827_000 + Number(h.number % 1000n) * 3000;
  return bytes(
    {
      blockID: h.hash,
      block_header: { raw_data: { number: Number(h.number), parentHash: h.parentHash, timestamp: time } },
      transactions: txs.map(([tx]) => plain(tx)),
    },
    txs.map(([, info]) => ({ ...info, blockNumber: Number(h.number), blockTimeStamp: time })),
    amountText,
  );
}
