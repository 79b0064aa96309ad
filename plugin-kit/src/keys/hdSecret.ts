import { generateMnemonic, mnemonicToEntropy, mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import type { WalletSecret } from '../contract/contract';
import { InvariantError } from '../errors';

/**
 * A wallet's secret is a 24-word BIP-39 mnemonic generated on the server: the plugins derive
 * chain keys from its seed (BIP-32/44/84, SLIP-10), and the company can restore the wallet in
 * standard tools from the sealed export.
 */
export function generateWalletMnemonic(): string {
  // 256 bits of entropy; @scure/bip39 draws from the platform CSPRNG, and we check the result.
  const phrase = generateMnemonic(wordlist, 256);
  if (!validateMnemonic(phrase, wordlist)) throw new InvariantError('generated an invalid mnemonic');
  return phrase;
}

export const isValidMnemonic = (phrase: string): boolean => validateMnemonic(phrase, wordlist);

export const mnemonicToSeed = (phrase: string): Uint8Array => mnemonicToSeedSync(phrase);

/**
 * The wallet secret as plugins receive it (contract v2 `WalletSecret`), opened from the mnemonic
 * bytes. Every accessor returns a fresh copy; `dispose()` zeroes the copies handed out, so a
 * plugin that keeps one by mistake keeps zeros. The caller zeroes the mnemonic bytes it owns.
 */
export function openWalletSecret(phrase: Uint8Array): WalletSecret & { dispose(): void } {
  const handedOut: Uint8Array[] = [];
  const text = () => Buffer.from(phrase).toString('utf8');
  const keep = (bytes: Uint8Array) => {
    handedOut.push(bytes);
    return bytes;
  };
  return {
    seed: () => keep(mnemonicToSeedSync(text())),
    entropy: () => keep(mnemonicToEntropy(text(), wordlist)),
    mnemonic: text,
    dispose: () => {
      for (const b of handedOut) b.fill(0);
      handedOut.length = 0;
    },
  };
}
