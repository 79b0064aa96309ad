/** What the mark means, in the tooltip and the legend under a list that shows it. */
export const TOKEN_KEY_TEXT =
  'The key was generated inside the PKCS#11 token (the HSM) and never leaves it: walletd asks the token for each signature. It is not derived from the wallet’s mnemonic, so the wallet’s secret export does not contain it.';

/** The mark of an address whose key is held in the token (issue 45 §3): the same everywhere an address is shown. */
export function TokenKeyMark() {
  return (
    <span class="key-mark" title={TOKEN_KEY_TEXT} data-testid="token-key">
      key in the token
    </span>
  );
}
