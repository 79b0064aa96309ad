import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateTokenKey, type TokenKeyConfig, tokenSigner, type UnsignedWithdrawal, type WalletSecret } from '@walletd/core';
import { assemble, createTronPlugin, formatTronAddress, type TronTxPayload } from '@walletd/plugin-tron';
import { describeWithSoftHsm, newSoftHsmToken, SOFTHSM_MODULE } from '@walletd/test-harness';
import { recoverAddress, Signature } from 'ethers';

const trx = JSON.parse(readFileSync(join(__dirname, '..', '..', 'fixtures', 'tron', 'tron-mainnet-trx-transfer-d8b11250.json'), 'utf8'))
  .data.transaction;
const TRX = { key: 'tron:mainnet:trx', symbol: 'TRX', decimals: 6, contractAddress: null };

/**
 * Issue 45 §3 on Tron: a secp256k1 key generated inside a SoftHSM2 token controls a Tron address
 * (from its public key) and signs a TRX transfer's txID there (`CKM_ECDSA`); the plugin adds the
 * recovery byte, its own checkSigned accepts the transaction, and ethers recovers the same account
 * from the signature. The recorded mainnet transfer d8b11250 gives the fields, its owner replaced.
 */
describeWithSoftHsm('a Tron key held in the token', () => {
  it('signs a TRX transfer in the token that recovers the token key’s address; the seed is never opened', async () => {
    const token = newSoftHsmToken(`tron-${process.pid}`);
    const config: TokenKeyConfig = { module: SOFTHSM_MODULE, tokenLabel: token.label, pin: token.pin, keyLabel: 'walletd-address-1-0' };
    generateTokenKey(config, 'secp256k1');
    const signer = tokenSigner(config);
    const plugin = createTronPlugin();
    try {
      expect(plugin.chains.find((c) => c.chain === 'tron')?.keyHeldInToken).toBe('secp256k1');
      const owner = plugin.addressOfKey?.('tron', 'mainnet', signer);
      expect(owner?.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
      const v = trx.raw_data.contract[0].parameter.value;
      const fields = {
        kind: 'trx' as const,
        owner: owner?.address as string,
        to: formatTronAddress(v.to_address),
        amount: String(v.amount),
        refBlockBytes: trx.raw_data.ref_block_bytes,
        refBlockHash: trx.raw_data.ref_block_hash,
        refBlockNumber: '0',
        refBlockTime: trx.raw_data.timestamp,
        expiration: trx.raw_data.expiration,
        timestamp: trx.raw_data.timestamp,
      };
      const built = assemble(fields);
      const payload: TronTxPayload = {
        ...fields,
        feeParts: { bandwidth: '0', newAccount: '0', memo: '0', energy: '0' },
        rawDataHex: Buffer.from(built.bytes).toString('hex'),
        txID: built.txID,
      };
      const unsigned: UnsignedWithdrawal = {
        intent: {
          chain: 'tron',
          network: 'mainnet',
          asset: TRX,
          outputs: [{ to: fields.to, amount: BigInt(fields.amount) }],
          sources: [fields.owner],
        },
        payload,
        fee: 0n,
        sourceAddresses: [fields.owner],
      };
      const refuse = (): never => {
        throw new Error('the seed was opened for a key held in the token');
      };
      const secret: WalletSecret = { seed: refuse, entropy: refuse, mnemonic: refuse, signerAt: (i) => (i === 0 ? signer : undefined) };
      const verbs = plugin.withdrawals;
      const signed = await verbs?.sign(unsigned, secret, [0]);
      expect(signed?.txHash).toBe(built.txID);
      // The plugin's own check of a signed transaction (signature recovers the source, fields pay the intent).
      const checked = verbs?.checkSigned?.(unsigned, signed?.raw as string, unsigned);
      expect(checked?.signed.txHash).toBe(built.txID);
      // And independently: the 65 bytes at the end of the protobuf recover the token key's account.
      const sig = Buffer.from(signed?.raw as string, 'hex').subarray(-65);
      const recovered = recoverAddress(
        `0x${built.txID}`,
        Signature.from({
          r: `0x${sig.subarray(0, 32).toString('hex')}`,
          s: `0x${sig.subarray(32, 64).toString('hex')}`,
          v: sig[64] as number,
        }),
      );
      expect(recovered.toLowerCase()).toBe(`0x${owner?.matchKey}`);
    } finally {
      signer.close();
    }
  });
});
