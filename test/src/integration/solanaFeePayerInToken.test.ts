import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda } from '@solana-program/token';
import { randomBytes, verify as verifySignature, createPublicKey } from 'node:crypto';
import { type ChainSettings, MasterKey, tokenSigner } from '@walletd/core';
import {
  baseUnits,
  createTestDatabase,
  describeWithSoftHsm,
  expectSchema,
  newSoftHsmToken,
  SOFTHSM_MODULE,
  softHsmKeySettings,
  type SolanaSvmNode,
  type SoftHsmToken,
  startSolanaSvm,
  sweepBench,
  type TestDatabase,
} from '@walletd/test-harness';
import { getAddressDecoder, getBase64Encoder, getTransactionDecoder } from '@solana/kit';

const SOL = 1_000_000_000n;
const ata = async (owner: string, mint: string) =>
  (await findAssociatedTokenPda({ owner: owner as never, mint: mint as never, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0] as string;
// An Ed25519 public key as Node's crypto takes it: the SPKI prefix, then the 32 bytes.
const ed25519Public = (raw: Uint8Array) =>
  createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]), format: 'der', type: 'spki' });

/**
 * Issue 45 §3 on Solana: with `masterKey.gasStationsInToken`, a Solana wallet's gas station, the fee
 * payer of its token sweeps, is an Ed25519 key pair generated inside the PKCS#11 token (SoftHSM2,
 * `CKM_EDDSA`): its address is the token's public key, its signature on the sweep is made there,
 * litesvm executes the sweep with the station paying the fee, and the signature is counted and audited.
 */
describeWithSoftHsm('a Solana fee payer whose key is held in the token (litesvm)', () => {
  let t: TestDatabase;
  let node: SolanaSvmNode;
  let token: SoftHsmToken;
  let mint: string;
  const label = `sol-fee-${process.pid}`;
  const b = sweepBench(new MasterKey(randomBytes(32)), {
    masterKey: {
      gasStationsInToken: true,
      pkcs11: softHsmKeySettings(label),
    },
  });
  const round = async () => {
    node.produceBlocks(3);
    await b.follower.tick();
  };
  const tokens = async (owner: string): Promise<bigint> => {
    const acc = node.svm.getAccount((await ata(owner, mint)) as never);
    if (!acc.exists) return -1n;
    return new DataView(acc.data.buffer, acc.data.byteOffset + 64, 8).getBigUint64(0, true);
  };

  beforeAll(async () => {
    token = newSoftHsmToken(label);
    t = await createTestDatabase();
    node = await startSolanaSvm({ priorityFee: 1_000n });
    mint = await node.createMint(6);
    const settings: ChainSettings = {
      chain: 'solana',
      network: 'localnet',
      rpcUrl: node.url,
      startBlock: Number(node.slot) + 1,
      tokens: [{ contract: mint, symbol: 'USDC', decimals: 6 }],
    };
    await b.start(t.db, settings);
  });
  afterAll(async () => {
    await b.stop();
    await node.close();
    await t.drop();
  });

  it('the station is the token key’s address; it signs the sweep in the token as fee payer and litesvm executes it', async () => {
    const walletId = await b.newWallet('sol');
    const treasury = await b.newAddress(walletId);
    const deposit = await b.newAddress(walletId);
    const station = (await b.gasStation(walletId)).body;
    expectSchema('GasStation', station);
    expect(station).toMatchObject({ keyHeldIn: 'token', path: `pkcs11:walletd-gas-station-${walletId}` });
    const held = tokenSigner({
      module: SOFTHSM_MODULE,
      tokenLabel: token.label,
      pin: token.pin,
      keyLabel: `walletd-gas-station-${walletId}`,
    });
    expect(held.curve).toBe('ed25519');
    const stationKey = held.publicKey();
    held.close();
    expect(station.address).toBe(getAddressDecoder().decode(stationKey));

    await b.follower.tick(); // registers the deposit address's token account for the listed mint
    await node.sendSol(station.address, SOL);
    await node.mintTo(mint, deposit, 5_000_000n, 6);
    await round();
    const rule = await b.addRule(walletId, { asset: 'USDC', destination: treasury });
    expect(rule.status).toBe(201);
    const before = node.svm.getBalance(station.address as never) ?? 0n;
    expect(await b.runSweeps()).toMatchObject({ sent: 1, toppedUp: 0, failed: 0 });
    await round();

    const [sweep] = await b.withdrawals(walletId);
    const detail = (await b.api('GET', `/withdrawals/${sweep?.id}`)).body;
    expect(detail).toMatchObject({ status: 'confirmed', toAddress: treasury, amount: '5' });
    expect(detail.sourceAddresses).toEqual([deposit, station.address]);
    expect(await tokens(treasury)).toBe(5_000_000n);
    // The station paid the fee (and the treasury's new token account's rent) from its own SOL.
    expect(before - (node.svm.getBalance(station.address as never) ?? 0n)).toBe(baseUnits(detail.fee.amount, 9));

    // The fee payer's signature on the executed transaction verifies with the token's public key.
    const row = await t.db('withdrawals').where({ id: sweep?.id }).first('signed_tx');
    const tx = getTransactionDecoder().decode(getBase64Encoder().encode(row.signed_tx as string));
    const sig = tx.signatures[station.address as never] as Uint8Array;
    expect(verifySignature(null, Buffer.from(tx.messageBytes), ed25519Public(stationKey), Buffer.from(sig))).toBe(true);

    const signed = await t
      .db('audit_log')
      .where({ action: 'withdrawal.signed', target_id: String(sweep?.id) })
      .first();
    expect(signed.details).toMatchObject({ keyHeldIn: 'token', txHash: detail.txHash });
    const metric = await b.common.metrics?.tokenSignatures.get();
    expect(metric?.values.find((v) => v.labels.curve === 'ed25519')?.value).toBe(1);
  });
});
