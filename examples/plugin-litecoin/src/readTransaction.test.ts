import { bitcoin } from './libs';
import { readTransaction } from './readTransaction';

/** A transaction with `witness` on its input, locktime 0x01020304, as bitcoinjs-lib serializes it. */
function sample(witness: boolean) {
  const tx = new bitcoin.Transaction();
  tx.version = 2;
  tx.locktime = 0x01020304;
  tx.addInput(Buffer.alloc(32, 7), 1, 0xfffffffd);
  tx.addOutput(Buffer.from(`0014${'ab'.repeat(20)}`, 'hex'), 123_456_789_012n);
  if (witness) tx.setWitness(0, [Buffer.from('3044', 'hex'), Buffer.alloc(33, 2)]);
  return tx;
}

/** Litecoin's MWEB form of `tx`: flag bit 0x08, then `mweb` before the lock time. */
function withMweb(tx: ReturnType<typeof sample>, mweb: number[]): Buffer {
  const bytes = tx.toBuffer();
  const witness = tx.hasWitnesses();
  const body = witness ? bytes.subarray(6, bytes.length - 4) : bytes.subarray(4, bytes.length - 4);
  return Buffer.concat([bytes.subarray(0, 4), Buffer.from([0, witness ? 0x09 : 0x08]), body, Buffer.from(mweb), bytes.subarray(-4)]);
}

describe('readTransaction: bitcoinjs-lib, with Litecoin MWEB framing around it', () => {
  it('reads a segwit transaction in place and tells its length, whatever follows', () => {
    const tx = sample(true);
    const bytes = Buffer.concat([Buffer.from('ff', 'hex'), tx.toBuffer(), Buffer.from('deadbeef', 'hex')]);
    const read = readTransaction(bytes, 1);
    expect(read.length).toBe(tx.byteLength());
    expect(read.tx.getId()).toBe(tx.getId());
    expect(read.tx.outs[0]?.value).toBe(123_456_789_012n);
  });

  it.each([true, false])('reads the transparent part of a transaction with empty MWEB data (witness: %s)', (witness) => {
    const tx = sample(witness);
    const mweb = withMweb(tx, [0]);
    const read = readTransaction(Buffer.concat([mweb, Buffer.from('00ff', 'hex')]));
    expect(read.length).toBe(mweb.length);
    // The txid covers neither witnesses nor MWEB data: the same as bitcoin's.
    expect(read.tx.getId()).toBe(tx.getId());
    expect(read.tx.locktime).toBe(0x01020304);
    expect(read.tx.outs.map((o) => o.value)).toEqual([123_456_789_012n]);
  });

  it('refuses a transaction that carries MWEB data, and unknown flags', () => {
    expect(() => readTransaction(withMweb(sample(true), [1, 0, 0]))).toThrow('MWEB data');
    const unknown = withMweb(sample(true), [0]);
    unknown[5] = 0x0b;
    expect(() => readTransaction(unknown)).toThrow('unknown transaction flags');
  });
});
