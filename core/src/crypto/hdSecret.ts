import { generateMnemonic, mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';

/**
 * A wallet's secret is a 24-word BIP-39 mnemonic generated on the server: the plugins derive
 * chain keys from its seed (BIP-32/44/84, SLIP-10), and the company can restore the wallet in
 * standard tools from the sealed export.
 */
export function generateWalletMnemonic(): string {
  // 256 bits of entropy; @scure/bip39 draws from the platform CSPRNG, and we check the result.
  const phrase = generateMnemonic(wordlist, 256);
  if (!validateMnemonic(phrase, wordlist)) throw new Error('generated an invalid mnemonic');
  return phrase;
}

export const isValidMnemonic = (phrase: string): boolean => validateMnemonic(phrase, wordlist);

export const mnemonicToSeed = (phrase: string): Uint8Array => mnemonicToSeedSync(phrase);
