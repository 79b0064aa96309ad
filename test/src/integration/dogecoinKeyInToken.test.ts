import { generateTokenKey, type TokenKeyConfig, tokenSigner, type UnsignedWithdrawal, type WalletSecret } from '@walletd/core';
import { bitcoin, createUtxoPlugin, ecc, type UtxoTxPayload, utxoNetwork } from '@walletd/plugin-utxo';
import { describeWithSoftHsm, newSoftHsmToken, SOFTHSM_MODULE } from '@walletd/test-harness';

const DOGE = { key: 'dogecoin:mainnet:doge', symbol: 'DOGE', decimals: 8, contractAddress: null };
const N_HALF = BigInt('0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0');

/**
 * Issue 45 §3 on dogecoin (no segwit: P2PKH): a secp256k1 key generated inside a SoftHSM2 token
 * controls a D… address (its compressed key's hash) and signs a P2PKH input there; the scriptSig
 * carries a DER low-s signature with SIGHASH_ALL and the compressed key, and it verifies against
 * the legacy sighash of the spent output. No dogecoind here: the spend is checked by the script's
 * own rules, the bitcoin side runs against litecoind (utxoKeyInToken.test.ts).
 */
describeWithSoftHsm('a dogecoin key held in the token', () => {
  it('names the token key’s P2PKH address and signs its input in the token; the seed is never opened', async () => {
    const token = newSoftHsmToken(`doge-${process.pid}`);
    const config: TokenKeyConfig = { module: SOFTHSM_MODULE, tokenLabel: token.label, pin: token.pin, keyLabel: 'walletd-address-1-0' };
    generateTokenKey(config, 'secp256k1');
    const signer = tokenSigner(config);
    const plugin = createUtxoPlugin();
    try {
      expect(plugin.chains.find((c) => c.chain === 'dogecoin')?.keyHeldInToken).toBe('secp256k1');
      const owner = plugin.addressOfKey?.('dogecoin', 'mainnet', signer);
      expect(owner?.address).toMatch(/^D[1-9A-HJ-NP-Za-km-z]{33}$/);
      const prevScript = Buffer.from(owner?.matchKey as string, 'hex');
      expect(bitcoin.script.toASM(prevScript)).toMatch(/^OP_DUP OP_HASH160 [0-9a-f]{40} OP_EQUALVERIFY OP_CHECKSIG$/);

      // The coin it spends: output 0 of a transaction paying 5 DOGE to the token's address.
      const prev = new bitcoin.Transaction();
      prev.addInput(Buffer.alloc(32, 7), 0);
      prev.addOutput(prevScript, 500_000_000n);
      const net = utxoNetwork('dogecoin', 'mainnet');
      const psbt = new bitcoin.Psbt({ network: net.params });
      psbt.addInput({ hash: prev.getId(), index: 0, nonWitnessUtxo: prev.toBuffer(), sequence: 0xfffffffd });
      psbt.addOutput({ script: prevScript, value: 499_700_000n });
      const payload: UtxoTxPayload = {
        psbt: psbt.toBase64(),
        inputs: [{ txid: prev.getId(), vout: 0, address: owner?.address as string, script: owner?.matchKey as string, value: '500000000' }],
        outputs: [{ address: owner?.address as string, script: owner?.matchKey as string, value: '499700000', change: false }],
        feeRate: '1300',
        vsize: 226,
      } as UtxoTxPayload;
      const unsigned: UnsignedWithdrawal = {
        intent: {
          chain: 'dogecoin',
          network: 'mainnet',
          asset: DOGE,
          outputs: [{ to: owner?.address as string, amount: 499_700_000n }],
          sources: [owner?.address as string],
        },
        payload,
        fee: 300_000n,
        sourceAddresses: [owner?.address as string],
      };
      const refuse = (): never => {
        throw new Error('the seed was opened for a key held in the token');
      };
      const secret: WalletSecret = { seed: refuse, entropy: refuse, mnemonic: refuse, signerAt: (i) => (i === 0 ? signer : undefined) };
      const signed = await plugin.withdrawals?.sign(unsigned, secret, [0]);
      const tx = bitcoin.Transaction.fromHex(signed?.raw as string);
      expect(tx.getId()).toBe(signed?.txHash);
      const [der, key] = bitcoin.script.decompile(tx.ins[0]?.script as Uint8Array) as Uint8Array[];
      const decoded = bitcoin.script.signature.decode(der as Uint8Array);
      expect(decoded.hashType).toBe(bitcoin.Transaction.SIGHASH_ALL);
      expect(key).toHaveLength(33);
      expect(BigInt(`0x${Buffer.from(decoded.signature.subarray(32)).toString('hex')}`) <= N_HALF).toBe(true);
      const hash = tx.hashForSignature(0, prevScript, bitcoin.Transaction.SIGHASH_ALL);
      expect(ecc.verify(hash, key as Uint8Array, decoded.signature)).toBe(true);
      expect(bitcoin.crypto.hash160(key as Uint8Array)).toEqual(prevScript.subarray(3, 23));
    } finally {
      signer.close();
    }
  });
});
